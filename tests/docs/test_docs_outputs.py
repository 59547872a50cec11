"""scripts/docs_outputs.py on made-up docs: CPU blocks compared and rewritten, GPU blocks left alone
without --gpu but checked for their form, and the errors that name the marker."""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.path.join(os.environ.get("GEMMLAB_SCRIPTS_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "scripts"),
                      "docs_outputs.py")

# A stand-in for gemmlab: prints its arguments.
FAKE = "#!/bin/sh\necho \"ran: $*\"\n"


class DocsOutputs(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        self.gemmlab = os.path.join(self.root, "fake-gemmlab")
        with open(self.gemmlab, "w") as f:
            f.write(FAKE)
        os.chmod(self.gemmlab, 0o755)

    def tearDown(self):
        self.dir.cleanup()

    def write_doc(self, text):
        with open(os.path.join(self.root, "README.md"), "w") as f:
            f.write(textwrap.dedent(text))

    def read_doc(self):
        with open(os.path.join(self.root, "README.md")) as f:
            return f.read()

    def run_script(self, *args):
        p = subprocess.run([sys.executable, SCRIPT, *args, "--gemmlab", self.gemmlab, "--root", self.root],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return p.returncode, p.stdout

    GPU_BLOCK = """\
        <!-- gemmlab-gpu-output: explain -s 8 | abc1234, Some GPU -->
        ```
        $ gemmlab explain -s 8
        whatever a GPU printed
        ```
        """

    def test_a_stale_cpu_block_fails_the_check_and_is_rewritten_by_update(self):
        self.write_doc(textwrap.dedent("""\
            <!-- gemmlab-output: list -->
            ```
            $ gemmlab list
            old
            ```
            """) + textwrap.dedent(self.GPU_BLOCK))
        rc, out = self.run_script("--check")
        self.assertEqual(rc, 1, out)
        self.assertIn("README.md:1", out)
        rc, out = self.run_script("--update")
        self.assertEqual(rc, 0, out)
        doc = self.read_doc()
        self.assertIn("ran: list", doc)
        self.assertIn("whatever a GPU printed", doc, "a GPU block changed without --gpu")
        self.assertEqual(self.run_script("--check")[0], 0)

    def test_a_gpu_marker_must_say_where_it_was_made(self):
        self.write_doc("""\
            <!-- gemmlab-gpu-output: explain -s 8 -->
            ```
            $ gemmlab explain -s 8
            ```
            """)
        rc, out = self.run_script("--check")
        self.assertEqual(rc, 2, out)
        self.assertIn("does not say where it was made", out)

    def test_a_gpu_block_must_start_with_its_command(self):
        self.write_doc("""\
            <!-- gemmlab-gpu-output: explain -s 8 | abc1234, Some GPU -->
            ```
            $ gemmlab explain -s 9
            ```
            """)
        rc, out = self.run_script("--check")
        self.assertEqual(rc, 2, out)
        self.assertIn("does not start with '$ gemmlab explain -s 8'", out)

    def test_gpu_runs_only_with_update(self):
        self.write_doc(textwrap.dedent(self.GPU_BLOCK))
        rc, out = self.run_script("--check", "--gpu")
        self.assertNotEqual(rc, 0)
        self.assertIn("--gpu goes with --update", out)


if __name__ == "__main__":
    unittest.main()
