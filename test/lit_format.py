"""The lit test format of DeepEx's suite (lit.cfg.py imports it; a module of
its own so that lit's worker processes can unpickle it)."""
import glob
import os
import shutil

import lit.formats
import lit.Test
import lit.TestRunner


class ShTestRemovingOutputs(lit.formats.ShTest):
    """lit's ShTest; then what a passing test wrote under Output/ (%t, %t.exe,
    %t.d/, ...) is removed. The suite compiles over a hundred executables and
    copies the installed toolchain twice: kept, they filled the disk of a CI
    machine that had a few GB free before the suite ended. A test that fails
    keeps its files to be looked at; keep_outputs keeps every test's."""

    def __init__(self, keep_outputs=False, **kwargs):
        super().__init__(**kwargs)
        self.keep_outputs = keep_outputs

    def execute(self, test, litConfig):
        result = super().execute(test, litConfig)
        if result.code == lit.Test.PASS and not self.keep_outputs:
            _, tmp_base = lit.TestRunner.getTempPaths(test)
            for path in glob.glob(glob.escape(tmp_base) + ".tmp*"):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    try:
                        os.remove(path)
                    except OSError:
                        pass
        return result
