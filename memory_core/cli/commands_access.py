"""Accounts, API tokens and the audit trail (``memory_core/services/access.py``).

    user add NAME --role viewer|annotator|admin [--oidc] [--password-stdin]
    user passwd NAME [--password-stdin]      user disable NAME      user enable NAME
    user role NAME ROLE                      user list
    token create --role ROLE [--conv ID] [--label TEXT]     (prints the token once)
    token list                               token revoke ID
    audit [--who NAME] [--action A] [--conv ID] [--frontend F] [--limit N]

The CLI runs as the operator of the home (the OS user, admin): whoever can run it already
holds the database. Passwords are asked twice on a terminal (never an argument, so they stay
out of shell history and process lists) or read as one line from stdin with
``--password-stdin``; they are never printed or logged.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from memory_core.config import Settings
from memory_core.errors import AccessError
from memory_core.services.access import ROLES


def register(sub: Any) -> None:
    user = sub.add_parser("user", help="local accounts: add, passwd, disable, enable, role, list")
    users = user.add_subparsers(dest="user_command", required=True, metavar="ACTION")
    p = users.add_parser("add", help="add an account")
    p.add_argument("name")
    p.add_argument("--role", required=True, choices=ROLES)
    p.add_argument("--oidc", action="store_true",
                   help="no local password: logs in through the identity provider")
    p.add_argument("--password-stdin", action="store_true", help="read the password from stdin (one line)")
    p.set_defaults(func=cmd_user_add)
    p = users.add_parser("passwd", help="set an account's password")
    p.add_argument("name")
    p.add_argument("--password-stdin", action="store_true", help="read the password from stdin (one line)")
    p.set_defaults(func=cmd_user_passwd)
    for action in ("disable", "enable"):
        p = users.add_parser(action, help=f"{action} an account (disabling ends its sessions)")
        p.add_argument("name")
        p.set_defaults(func=cmd_user_disable, disabled=action == "disable")
    p = users.add_parser("role", help="change an account's role")
    p.add_argument("name")
    p.add_argument("role", choices=ROLES)
    p.set_defaults(func=cmd_user_role)
    users.add_parser("list", help="list accounts").set_defaults(func=cmd_user_list)

    token = sub.add_parser("token", help="API tokens for programs: create, list, revoke")
    tokens = token.add_subparsers(dest="token_command", required=True, metavar="ACTION")
    p = tokens.add_parser("create", help="create a token (printed once)")
    p.add_argument("--role", required=True, choices=ROLES)
    p.add_argument("--conv", default=None, help="limit the token to this conversation")
    p.add_argument("--label", default="", help="what the token is for")
    p.set_defaults(func=cmd_token_create)
    tokens.add_parser("list", help="list tokens (never their secrets)").set_defaults(func=cmd_token_list)
    p = tokens.add_parser("revoke", help="revoke a token by its id")
    p.add_argument("id")
    p.set_defaults(func=cmd_token_revoke)

    p = sub.add_parser("audit", help="print the audit trail, newest first")
    p.add_argument("--who", default=None)
    p.add_argument("--action", default=None)
    p.add_argument("--conv", default=None)
    p.add_argument("--frontend", default=None)
    p.add_argument("--limit", type=int, default=100)
    p.set_defaults(func=cmd_audit)


def _services(settings: Settings) -> Any:
    from memory_core.services import Services

    return Services.open(settings)


def _password(args: argparse.Namespace, name: str) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    if not sys.stdin.isatty():
        raise AccessError(f"password for '{name}': use --password-stdin when stdin is not a terminal")
    first = getpass.getpass(f"Password for {name}: ")
    if getpass.getpass("Again: ") != first:
        raise AccessError(f"password for '{name}': the two entries differ; nothing changed")
    return first


def cmd_user_add(args: argparse.Namespace, settings: Settings) -> int:
    svc = _services(settings)
    try:
        if args.oidc:
            svc.access.add_oidc_user(args.name, args.role, by=svc.principal, frontend=svc.frontend)
        else:
            svc.access.add_user(args.name, args.role, _password(args, args.name), by=svc.principal,
                                frontend=svc.frontend)
        print(f"added {args.role} '{args.name}'" + (" (identity provider login)" if args.oidc else ""))
    finally:
        svc.close()
    return 0


def cmd_user_passwd(args: argparse.Namespace, settings: Settings) -> int:
    svc = _services(settings)
    try:
        svc.access.set_password(args.name, _password(args, args.name), by=svc.principal,
                                frontend=svc.frontend)
        print(f"password of '{args.name}' changed; its sessions ended")
    finally:
        svc.close()
    return 0


def cmd_user_disable(args: argparse.Namespace, settings: Settings) -> int:
    svc = _services(settings)
    try:
        svc.access.set_disabled(args.name, args.disabled, by=svc.principal, frontend=svc.frontend)
        print(f"{'disabled' if args.disabled else 'enabled'} '{args.name}'")
    finally:
        svc.close()
    return 0


def cmd_user_role(args: argparse.Namespace, settings: Settings) -> int:
    svc = _services(settings)
    try:
        svc.access.set_role(args.name, args.role, by=svc.principal, frontend=svc.frontend)
        print(f"'{args.name}' is now {args.role}")
    finally:
        svc.close()
    return 0


def cmd_user_list(args: argparse.Namespace, settings: Settings) -> int:
    svc = _services(settings)
    try:
        for row in svc.access.users(svc.principal):
            state = "disabled" if row["disabled"] else ("locked" if row["locked_until"] else "active")
            print(f"{row['name']}\t{row['role']}\t{state}\tcreated {row['created_at']:%Y-%m-%d %H:%M}")
    finally:
        svc.close()
    return 0


def cmd_token_create(args: argparse.Namespace, settings: Settings) -> int:
    svc = _services(settings)
    try:
        token_id, token = svc.access.create_token(args.role, args.label, conv_id=args.conv, by=svc.principal,
                                                  frontend=svc.frontend)
        scope = f", conversation {args.conv}" if args.conv else ""
        print(f"token {token_id} ({args.role}{scope}) — shown once, keep it now:")
        print(token)
    finally:
        svc.close()
    return 0


def cmd_token_list(args: argparse.Namespace, settings: Settings) -> int:
    svc = _services(settings)
    try:
        for row in svc.access.tokens(svc.principal):
            state = f"revoked {row['revoked_at']:%Y-%m-%d %H:%M}" if row["revoked_at"] else "live"
            print(f"{row['id']}\t{row['role']}\t{row['conv_id'] or '*'}\t{state}\t{row['label']}")
    finally:
        svc.close()
    return 0


def cmd_token_revoke(args: argparse.Namespace, settings: Settings) -> int:
    svc = _services(settings)
    try:
        svc.access.revoke_token(args.id, by=svc.principal, frontend=svc.frontend)
        print(f"revoked token {args.id}")
    finally:
        svc.close()
    return 0


def cmd_audit(args: argparse.Namespace, settings: Settings) -> int:
    svc = _services(settings)
    try:
        rows = svc.access.audit_log(svc.principal, who=args.who, action=args.action, conv_id=args.conv,
                                    frontend=args.frontend, limit=args.limit)
        for row in rows:
            print(f"{row['logged_at']:%Y-%m-%d %H:%M:%S}\t{row['who']}\t{row['frontend']}\t{row['action']}\t"
                  f"{row['conv_id'] or '-'}\t{row['detail']}")
        if not rows:
            print("no audit entries match")
    finally:
        svc.close()
    return 0
