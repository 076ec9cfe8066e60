"""``user``, ``token`` and ``audit`` commands: one-line errors, the token printed once, the
trail printed, passwords never echoed."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from memory_core.cli import main

PASSWORD = "a-long-test-password-42"


def run(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str,
        stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(["--home", str(home), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_accounts_tokens_and_audit_from_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    code, out, _ = run(home, monkeypatch, capsys, "user", "add", "ada", "--role", "admin", "--password-stdin",
                       stdin=PASSWORD + "\n")
    assert (code, out.strip()) == (0, "added admin 'ada'")
    code, _, err = run(home, monkeypatch, capsys, "user", "add", "vic", "--role", "viewer",
                       "--password-stdin",
                       stdin="short\n")
    assert (code, err.strip()) == (1, "error: password: at least 10 characters")
    code, _, err = run(home, monkeypatch, capsys, "user", "add", "vic", "--role", "viewer")
    assert code == 1 and "use --password-stdin when stdin is not a terminal" in err
    run(home, monkeypatch, capsys, "user", "add", "vic", "--role", "viewer",
                       "--password-stdin",
        stdin=PASSWORD + "\n")
    code, _, err = run(home, monkeypatch, capsys, "user", "add", "vic", "--role", "viewer",
                       "--password-stdin",
                       stdin=PASSWORD + "\n")
    assert (code, err.strip()) == (1, "error: account 'vic' already exists")
    code, out, _ = run(home, monkeypatch, capsys, "user", "disable", "vic")
    assert (code, out.strip()) == (0, "disabled 'vic'")
    code, out, _ = run(home, monkeypatch, capsys, "user", "list")
    assert [line.split("\t")[:3] for line in out.splitlines()] == [["ada", "admin", "active"],
                                                                  ["vic", "viewer", "disabled"]]
    code, out, _ = run(home, monkeypatch, capsys, "token", "create", "--role", "viewer", "--label", "nightly")
    token_id, token = out.split()[1], out.splitlines()[1]
    assert code == 0 and token.startswith("mnemo_") and len(token) > 40
    code, out, _ = run(home, monkeypatch, capsys, "token", "list")
    assert out.split("\t")[:4] == [token_id, "viewer", "*", "live"] and token not in out
    code, out, _ = run(home, monkeypatch, capsys, "token", "revoke", token_id)
    assert (code, out.strip()) == (0, f"revoked token {token_id}")
    code, _, err = run(home, monkeypatch, capsys, "token", "revoke", token_id)
    assert (code, err.strip()) == (1, f"error: no live token '{token_id}'")
    code, out, _ = run(home, monkeypatch, capsys, "audit", "--action", "token")
    lines = [line.split("\t") for line in out.splitlines()]
    assert [(ln[2], ln[3], ln[5]) for ln in lines] == [("cli", "token", f"revoke {token_id}"),
                                                       ("cli", "token", f"create {token_id} (viewer)")]
    code, out, _ = run(home, monkeypatch, capsys, "audit")
    assert "add ada (admin)" in out and "disable vic" in out and PASSWORD not in out and token not in out
    code, out, _ = run(home, monkeypatch, capsys, "audit", "--who", "nobody")
    assert out.strip() == "no audit entries match"
