# lit configuration for DeepEx. Tests live beside the code they test
# (compiler/*/test) and end-to-end checks under test/.
#   /usr/bin/python3 /usr/lib/llvm-19/build/utils/lit/lit.py -Dbuild_dir=build compiler test tools
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "test"))
from lit_format import ShTestRemovingOutputs  # noqa: E402

config.name = "DeepEx"
# What a passing test wrote under Output/ is removed (test/lit_format.py);
# -Dkeep_outputs=1 keeps it.
config.test_format = ShTestRemovingOutputs(
    keep_outputs=lit_config.params.get("keep_outputs", "0") not in ("0", ""), execute_external=True)
# A test that hangs fails after this many seconds instead of holding the run
# until CI's limit (the longest take about 130 s on a 2-core machine beside
# another test; the gradient checks took up to 515 s when executables were
# linked with GNU ld). lit needs psutil to end a test's processes; without it
# there is no limit, and lit says so.
test_timeout = int(lit_config.params.get("test_timeout", "1200"))
try:
    import psutil  # noqa: F401
    lit_config.maxIndividualTestTime = test_timeout
except ImportError:
    lit_config.note("python3-psutil not found: no time limit per test (scripts/setup.sh installs it; "
                    "run lit with /usr/bin/python3)")
config.suffixes = [".dx", ".test", ".mlir", ".ll"]
# Inputs/ and gradcheck cases/ hold inputs of tests, not tests.
config.excludes = ["Inputs", "cases", "CMakeLists.txt", "README.md", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)

build_dir = os.path.abspath(lit_config.params.get("build_dir", os.path.join(config.test_source_root, "build")))
config.test_exec_root = os.path.join(build_dir, "lit")
llvm_bin = "/usr/lib/llvm-19/bin"

config.environment["PATH"] = os.pathsep.join(
    [os.path.join(build_dir, "compiler"), llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
config.environment["NO_COLOR"] = "1"
# Training runs: one BLAS/OpenMP thread per rank (the CPUs are shared), and
# Open MPI's consent to run as root (CI runs as root).
config.environment["OPENBLAS_NUM_THREADS"] = "1"
config.environment["OMP_NUM_THREADS"] = "1"
config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
config.environment["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
# Shared-memory transfers by copy-in/copy-out: on this VM the single-copy
# mechanism (CMA) made each 1 MB all-reduce 3.5x slower (docs/cli.md).
config.environment["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
config.substitutions.append(("%dxc", os.path.join(build_dir, "compiler", "dxc")))
config.substitutions.append(("%mpirun", "mpirun --oversubscribe --bind-to none"))
config.substitutions.append(("%build", build_dir))
config.substitutions.append(("%datagen", os.path.join(build_dir, "datagen", "dx-datagen")))
config.substitutions.append(("%analyze", os.path.join(build_dir, "tools", "analyze", "dx-analyze")))
# Debian's python3 (with python3-torch), whatever python3 is first on PATH.
config.substitutions.append(("%python_torch", "/usr/bin/python3"))  # libdxrt.a, the gradcheck runner
config.substitutions.append(("%stdlib", os.path.join(config.test_source_root, "stdlib")))
config.substitutions.append(("%examples", os.path.join(config.test_source_root, "examples")))
# 'cuda': the CUDA toolkit's ptxas is here, so tests can assemble the PTX of
# --target=cuda (no GPU needed).
if os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("cuda")
# 'netns': root, with the right to make network namespaces (ip netns add), so
# test/mpi/multinode.test can build two nodes joined by a veth pair.
import subprocess
if os.geteuid() == 0 and shutil.which("ip") and shutil.which("unshare") and \
        subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode == 0:
    config.available_features.add("netns")
# 'chromium': Debian's headless browser (scripts/setup.sh installs it), for the
# test that loads the HTML report in a browser (report-browser.test).
if shutil.which("chromium"):
    config.available_features.add("chromium")
else:
    lit_config.note("chromium not found: compiler/report/test/report-browser.test is skipped "
                    "(scripts/setup.sh installs Debian's chromium)")
# 'slurm': Debian's Slurm (slurm-wlm) and munge are installed and we are root
# (SlurmUser=root), so test/slurm/slurm.test can start a one-node cluster of
# its own (test/slurm/cluster.sh; scripts/setup.sh installs them).
if os.geteuid() == 0 and all(shutil.which(t) or os.path.exists(os.path.join("/usr/sbin", t))
                             for t in ["slurmctld", "slurmd", "munged", "sbatch", "srun", "scontrol"]):
    config.available_features.add("slurm")
# 'lld-link': the build links executables with lld (CMake's DX_LINKER, which
# it wrote to runtime/dxrt-linker-flag.txt), compiler/driver/test/linker.test.
try:
    with open(os.path.join(build_dir, "runtime", "dxrt-linker-flag.txt")) as f:
        if f.read().strip() == "-fuse-ld=lld":
            config.available_features.add("lld-link")
except OSError:
    pass
# 'bf16': the CPU has bf16 dot products (AVX512_BF16 or AMX-BF16), so models
# compiled with precision bf16 run (test/e2e/bf16*.test); without, their
# refusal is what is tested.
try:
    with open("/proc/cpuinfo") as f:
        flags = f.read()
    if " avx512_bf16" in flags or " amx_bf16" in flags:
        config.available_features.add("bf16")
except OSError:
    pass
