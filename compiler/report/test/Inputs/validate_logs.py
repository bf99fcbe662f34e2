"""Validates metrics logs against docs/metrics-log.schema.json, line by line.

    validate_logs.py SCHEMA [--valid LOG...] [--invalid LOG...]

Each --valid log must have every line valid; each --invalid log must have a
line that is not (not JSON, or against the schema). Prints one line per log,
then a summary; exits 1 if a log is not as expected. Needs the Python
package jsonschema: without it, prints "skipped: ..." and exits 0 (the
report's own tests of these logs still run)."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("skipped: this python3 has no jsonschema module")
    sys.exit(0)


def problems(validator, path):
    """The first problem of each bad line: (line number, message)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError as e:
                out.append((n, "not JSON: " + str(e)))
                continue
            errors = sorted(validator.iter_errors(event), key=lambda e: list(e.absolute_path))
            if errors:
                e = errors[0]
                where = "/".join(str(p) for p in e.absolute_path)
                out.append((n, (where + ": " if where else "") + e.message))
    return out


def main(argv):
    schema_path, expect, logs = argv[0], None, []
    for a in argv[1:]:
        if a in ("--valid", "--invalid"):
            expect = a == "--valid"
        else:
            logs.append((a, expect))
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)  # the schema itself is a valid draft 2020-12 schema
    validator = cls(schema)
    wrong = 0
    for path, valid in logs:
        found = problems(validator, path)
        if found:
            print(f"{path}:{found[0][0]}: invalid: {found[0][1]}")
        else:
            print(f"{path}: valid")
        if bool(found) == valid:
            print(f"  UNEXPECTED: expected {'valid' if valid else 'invalid'}")
            wrong += 1
    print(f"{len(logs)} logs checked against {schema.get('$id')} (version {schema.get('version')}): "
          + ("all as expected" if not wrong else f"{wrong} not as expected"))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
