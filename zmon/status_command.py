"""``zmon status``: the health report of this host, or of a running zmon over HTTP(S)."""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from zmon.status.report import EXIT_CODES, build_report
from zmon.status.terminal import render_text


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--url",
        metavar="URL",
        help="read a running zmon (http[s]://host:10124) instead of this host",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the text (auto: on a terminal, unless NO_COLOR is set)",
    )
    tls = p.add_argument_group("remote zmon (as in a Prometheus scrape config)")
    tls.add_argument(
        "--tls.ca-file",
        dest="ca_file",
        metavar="FILE",
        help="CA certificate(s) to verify the server with",
    )
    tls.add_argument("--tls.cert-file", dest="cert_file", metavar="FILE", help="client certificate")
    tls.add_argument("--tls.key-file", dest="key_file", metavar="FILE", help="client key")
    tls.add_argument(
        "--tls.insecure-skip-verify",
        dest="insecure",
        action="store_true",
        help="do not verify the server's certificate",
    )
    tls.add_argument("--basic-auth.username", dest="username", metavar="USER")
    tls.add_argument("--basic-auth.password-file", dest="password_file", metavar="FILE")
    tls.add_argument(
        "--timeout", type=float, default=10.0, metavar="SECONDS", help="HTTP timeout (default 10)"
    )


def use_colour(choice: str, stream: Any) -> bool:
    if choice != "auto":
        return choice == "always"
    return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("NO_COLOR")


def run(args: argparse.Namespace, cfg: Any) -> int:
    """Print the report; the exit code is 0 ok, 1 warning, 2 critical, 3 unknown."""
    try:
        report = remote_report(args) if args.url else local_report(cfg, args.demo)
    except Exception as exc:  # noqa: BLE001 - any failure to look is UNKNOWN to a check
        print(f"UNKNOWN - zmon status: {exc}")
        return EXIT_CODES["unknown"]
    emit(report, args)
    return int(report["exit_code"])


def emit(report: dict[str, Any], args: argparse.Namespace) -> None:
    if args.json:
        sys.stdout.write(json.dumps(report, indent=1) + "\n")
        return
    text = render_text(report, colour=use_colour(args.color, sys.stdout))
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        sys.stdout.write(
            text.replace("→", "->").replace("°", " deg").encode("ascii", "replace").decode()
        )


def remote_report(args: argparse.Namespace) -> dict[str, Any]:
    from zmon.status.remote import HttpClientConfig, read_remote

    cfg = HttpClientConfig(
        ca_file=args.ca_file,
        cert_file=args.cert_file,
        key_file=args.key_file,
        insecure_skip_verify=args.insecure,
        username=args.username,
        password_file=args.password_file,
        timeout=args.timeout,
    )
    report, families = read_remote(args.url, cfg)
    if report is not None:
        return report
    host = urllib.parse.urlsplit(args.url).netloc
    return build_report(families, time.time(), host=host)


def local_report(
    cfg: Any,
    demo: bool,
    clock: Callable[[], float] = time.time,
    collect: Callable[[Any, bool], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The running zmon's judged report, as its HTTP process published it on this host
    (zmon/status/published.py), while it is fresh: the verdict of the declared alert
    conditions over zmon's history, what ``--url`` and the status page give. Otherwise
    one collection's diagnoses (``collect``, by default as ``zmon collect --once``), with
    ``not_judged`` saying that no alert was judged and why."""
    from zmon.status.published import Published, Unavailable, read_published, report_file

    found: Published | Unavailable
    if cfg.status_dir:
        found = read_published(report_file(cfg.status_dir, demo), clock())
    else:
        found = Unavailable("zmon publishes no report (web.status_dir is empty)")
    if isinstance(found, Published):
        return found.report
    report = (collect or collect_once)(cfg, demo)
    report["not_judged"] = {
        "why": found.why,
        "text": f"No alert was judged: zmon's history is not available ({found.why}), so "
        "these findings are one collection's diagnoses.",
    }
    return report


def collect_once(cfg: Any, demo: bool) -> dict[str, Any]:
    """Collect once from this host (as ``zmon collect --once``) and diagnose."""
    from zmon.exposition.snapshot import self_metrics
    from zmon.runtime.worker import build_scheduler

    host = None
    if demo:
        from zmon.demo.host import DemoHost

        host = DemoHost(cfg.demo_phase_seconds)
        cfg = host.apply(cfg)
        host.start()
    try:
        scheduler = build_scheduler(cfg, one_shot=True)
        scheduler.run_all_once()
        states = scheduler.snapshot.states()
        now = time.time()
        families = [fam for st in states for fam in st.families]
        families.extend(self_metrics(states, now, scheduler.snapshot.start_time))
        scheduler.stop()
    finally:
        if host is not None:
            host.stop()
    from zmon.host.last_pools import load_last_pools

    last = load_last_pools(cfg.paths.state_dir)
    return build_report(families, now, host=socket.gethostname(), last_pools=last)
