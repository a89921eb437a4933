"""schemathesis against the OpenAPI document the running API serves.

Every operation is called with generated inputs, valid and invalid, as a registered player:
no response may be a 5xx, and every response must match the status codes, content types
and schemas the document gives for it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.play import register
from tests.reliability.stack import ROOT, Stack

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"


def run_schemathesis(
    stack: Stack, workdir: Path, max_examples: int, seed: int | None, phases: str,
) -> tuple[str, int]:
    """Run the schemathesis CLI; (its output, how many test cases it generated)."""
    player = register(stack.http, "schemathesis")
    command = [
        sys.executable, "-m", "schemathesis.cli", "run", f"{stack.url}/openapi.json",
        "--checks", CHECKS, "--max-examples", str(max_examples), "--workers", "2",
        "--phases", phases, "--request-timeout", "10",
        "-H", f"Authorization: Bearer {player.token}", "--suppress-health-check", "all",
        *(["--seed", str(seed)] if seed is not None else []),
    ]
    # Run in a scratch directory: the CLI keeps its state in ./.schemathesis.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SCHEMATHESIS_HOOKS": "tests.reliability.schemathesis_hooks"}
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[output.find("FAILURES"):][:6000] + output[-3000:]
    generated = re.search(r"(\d+) generated", output)
    assert generated, output[-2000:]
    return output, int(generated.group(1))


def operations_tested(output: str) -> int:
    tested = re.search(r"Tested: (\d+)", output)
    return int(tested.group(1)) if tested else 0


def test_generated_requests_never_get_a_5xx_and_every_response_matches_the_openapi_document(
    shared_stack: Stack, tmp_path: Path, figures: dict,
) -> None:
    # The coverage phase tries every boundary and every kind of invalid value once; a short
    # fuzzing phase adds random ones.
    output, generated = run_schemathesis(shared_stack, tmp_path, 5, seed=20261129, phases="coverage,fuzzing")
    assert operations_tested(output) >= 13  # every operation of the document
    figures.update(inputs_tried=generated, operations=operations_tested(output), server_errors=0,
                   schema_mismatches=0)


@pytest.mark.soak
@pytest.mark.timeout(900)
def test_many_generated_requests_never_get_a_5xx_and_match_the_document(
    shared_stack: Stack, tmp_path: Path, figures: dict,
) -> None:
    output, generated = run_schemathesis(shared_stack, tmp_path, 300, seed=None, phases="examples,coverage,fuzzing")
    figures.update(inputs_tried=generated, operations=operations_tested(output), server_errors=0,
                   schema_mismatches=0)
