"""The README's `spacy project run` commands parse and resolve (as dry runs)."""
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def readme_project_commands():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    commands = []
    for block in blocks:
        for line in block.splitlines():
            for part in line.split("&&"):
                part = part.split("#")[0].strip()
                if part.startswith("python -m spacy project run"):
                    commands.append(part)
    return commands


def test_readme_has_project_commands():
    assert len(readme_project_commands()) >= 3


@pytest.mark.parametrize("command", readme_project_commands())
def test_readme_project_command_dry_run(command):
    args = shlex.split(command)[1:]  # drop "python"
    result = subprocess.run([sys.executable, *args, "--dry"], cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
