"""Command line: ``zmon serve|collect|status|parse|check-config|example-config|rules``."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO

from zmon import __version__
from zmon.base import logs
from zmon.base.errors import ParseError
from zmon.collecting.config import (
    Config,
    ConfigError,
    add_flags,
    all_settings,
    check_environment,
    example_toml,
    file_values,
    load,
    load_all,
)
from zmon.collecting.registry import collectors, parse_kinds, parse_streams
from zmon.parsers.common.paste import unwrap_paste


def _parser() -> argparse.ArgumentParser:
    registry = collectors()
    settings = all_settings(registry)
    p = argparse.ArgumentParser(prog="zmon", description="ZFS health monitor and exporter.")
    p.add_argument("--version", action="version", version=f"zmon {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the daemon and serve /metrics")
    serve.add_argument("--config", metavar="FILE", help="TOML config file")
    serve.add_argument(
        "--demo", action="store_true", help="serve a simulated host replayed from real captures"
    )
    serve.add_argument(
        "--demo.control-socket",
        dest="demo_control_socket",
        metavar="PATH",
        help="with --demo: the story moves on only when asked through this "
        "Unix socket (for tests; see zmon/demo/control.py)",
    )
    add_flags(serve, settings)

    collect = sub.add_parser("collect", help="run every enabled collector once and print")
    collect.add_argument(
        "--once",
        action="store_true",
        required=True,
        help="run once and print the exposition to stdout",
    )
    collect.add_argument("--config", metavar="FILE", help="TOML config file")
    collect.add_argument("--demo", action="store_true", help="collect from the demo host")
    add_flags(collect, settings)

    status = sub.add_parser(
        "status",
        help="explain this host's health (or a remote zmon's)",
        description="A one-screen health report with diagnoses. Exit "
        "code 0 healthy, 1 warning, 2 critical, 3 unknown.",
    )
    status.add_argument("--config", metavar="FILE", help="TOML config file")
    status.add_argument("--demo", action="store_true", help="report on the demo host")
    from zmon.status_command import add_arguments

    add_arguments(status)
    add_flags(status, settings)

    kinds = parse_kinds()
    parse = sub.add_parser(
        "parse",
        help="parse one captured output and print its metrics",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="kinds:\n" + "\n".join(f"  {k:14} {h}" for k, (_, h) in kinds.items()),
    )
    parse.add_argument("kind", choices=sorted(kinds), metavar="KIND")
    parse.add_argument("file", nargs="?", default="-", help="file to read, or - for stdin")

    check = sub.add_parser("check-config", help="validate a config file")
    check.add_argument("file", metavar="FILE")

    sub.add_parser("example-config", help="print a commented config with every key")

    rules = sub.add_parser(
        "rules",
        help="print the Prometheus alerting rules, linking the site's runbook and dashboards",
        description="The alerting and recording rules (as /usr/share/zmon/zmon.rules.yml), "
        "rendered for a site: each alert links its section of the runbook at --runbook-url "
        "and its Grafana dashboard at --grafana-url.",
    )
    from zmon.status.links import add_site_options

    add_site_options(rules)
    rules.add_argument("--output", metavar="FILE", help="write here instead of stdout")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "parse":
        return _parse(args.kind, args.file)
    if args.command == "check-config":
        return _check_config(args.file)
    if args.command == "example-config":
        sys.stdout.write(example_toml(collectors()))
        return 0
    if args.command == "rules":
        return _rules(args)
    try:
        cfg = load(collectors(), args.config, args)
    except ConfigError as exc:
        for line in str(exc).splitlines():
            print(f"zmon: invalid configuration: {line}", file=sys.stderr)
        return 2
    if args.command == "collect":
        return _collect_once(cfg, args.demo)
    if args.command == "status":
        from zmon.status_command import run

        # a report, not a daemon: only warnings and errors go to stderr unless asked
        logs.setup("warning" if cfg.log_level == "info" else cfg.log_level, cfg.log_format)
        return run(args, cfg)
    return _serve(cfg, args)


def _rules(args: argparse.Namespace) -> int:
    from alert_rules.generate import render  # in the package: pyproject.toml
    from zmon.status.links import site_of

    try:
        text = render(site=site_of(args))
    except ValueError as exc:
        print(f"zmon rules: {exc}", file=sys.stderr)
        return 2
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        print(f"zmon rules: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def _parse(kind: str, file: str) -> int:
    """``zmon parse``: one output, pasted or not, through the parser of ``kind``."""
    func, _ = parse_kinds()[kind]
    stream = parse_streams().get(kind)
    try:
        fh = sys.stdin.buffer if file == "-" else open(file, "rb")  # noqa: SIM115
    except OSError as exc:
        print(f"zmon parse {kind}: cannot read {file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        try:
            head = fh.read(PASTE_LIMIT + 1)
            if stream is not None and len(head) > PASTE_LIMIT:  # no paste: read as it goes
                metrics = stream(io.BufferedReader(_Rest(head, fh)))
            else:
                unwrapped = unwrap_paste(head if stream is not None else head + fh.read())
                if unwrapped.skipped:
                    print(f"zmon parse {kind}: {file}: {unwrapped.note()}", file=sys.stderr)
                if stream is not None:
                    metrics = stream(io.BytesIO(unwrapped.data))
                else:
                    metrics = func(unwrapped.data)
        finally:
            if fh is not sys.stdin.buffer:
                fh.close()
    except OSError as exc:
        print(f"zmon parse {kind}: cannot read {file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except ParseError as exc:
        print(f"zmon parse {kind}: {file}: {exc}".replace("\n", " "), file=sys.stderr)
        return 1
    from zmon.exposition.formats import render

    sys.stdout.buffer.write(render(metrics.families()))
    return 0


# A paste is smaller than this; a stream kind reads a larger input as it is, in bounded memory.
PASTE_LIMIT = 16 << 20


class _Rest(io.RawIOBase):
    """The first bytes of a stream, already read, then the rest of it."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _check_config(file: str) -> int:
    """Validate everything and report every problem, one line each (not just the first)."""
    from zmon.daemon import web_config

    cfg, problems = load_all(collectors(), file, None)
    if cfg is not None:
        problems += check_environment(cfg)
        try:
            web_config(cfg)
        except ConfigError as exc:
            problems.append(exc)
    elif not any(e.key == "web.listen_address" for e in problems):
        try:  # the options failed: still look at the listen address alone
            problems += check_environment(Config(listen_addresses=_listen_of(file), source=file))
        except (ConfigError, ValueError):
            pass
    for problem in problems:
        print(f"zmon: invalid configuration: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"{file}: ok")
    return 0


def _listen_of(file: str) -> list[str]:
    values = file_values(file, collectors())
    found = values.get("web.listen_address", Config().listen_addresses)
    return [str(a) for a in (found if isinstance(found, list) else [found])]


def _collect_once(cfg: Config, demo: bool) -> int:
    from zmon.runtime.worker import build_scheduler

    logs.setup(cfg.log_level, cfg.log_format)
    host = None
    if demo:
        from zmon.demo.host import DemoHost

        host = DemoHost(
            cfg.demo_phase_seconds,
            stepped=True,  # one run sees the first phase
            story=cfg.demo_story,
        )
        cfg = host.apply(cfg)
        host.start()
    try:
        scheduler = build_scheduler(cfg, one_shot=True)
        scheduler.run_all_once()
        sys.stdout.buffer.write(scheduler.snapshot.exposition.text)
        scheduler.stop()
    finally:
        if host is not None:
            host.stop()
    return 0


def _serve(cfg: Config, args: argparse.Namespace) -> int:
    from zmon.daemon import Daemon, config_loader

    control_socket = getattr(args, "demo_control_socket", None)
    if control_socket and not args.demo:
        print("zmon: --demo.control-socket needs --demo", file=sys.stderr)
        return 2
    stepped = bool(control_socket)  # a stepped demo host moves only when told to
    if args.demo and not stepped:
        from zmon.demo.host import check_pace
        from zmon.demo.timeline import STORIES

        try:
            check_pace(cfg, cfg.demo_phase_seconds, STORIES[cfg.demo_story])
        except ConfigError as exc:
            print(f"zmon: invalid configuration: {exc}", file=sys.stderr)
            return 2
    logs.setup(cfg.log_level, cfg.log_format)
    host = control = None
    if args.demo:
        from zmon.demo.host import DemoHost

        host = DemoHost(cfg.demo_phase_seconds, stepped=stepped, story=cfg.demo_story)
        cfg = host.apply(cfg)
    daemon = Daemon(cfg, config_loader(args.config, args), demo=bool(args.demo))
    if host is not None:
        daemon.on_reload = host.reapply
    # before start: a SIGTERM as soon as /metrics answers must already stop zmon cleanly
    daemon.install_signal_handlers()
    try:
        try:
            # listens first: nothing runs if an address or the web config fails; the HTTP
            # process is forked there, before any thread (the demo host's) starts
            daemon.listen()
            if host is not None:
                host.start()
            if host is not None and control_socket:  # listening before /healthz answers
                from zmon.demo.control import DemoControl

                control = DemoControl(host, control_socket, daemon.collectors)
                control.start()
            daemon.start()
        except ConfigError as exc:
            print(f"zmon: invalid configuration: {exc}", file=sys.stderr)
            daemon.shutdown()
            return 2
        except OSError as exc:
            print(f"zmon: {exc.strerror or exc}", file=sys.stderr)
            daemon.shutdown()
            return 1
        daemon.run_forever()
    finally:
        if control is not None:
            control.stop()
        if host is not None:
            host.stop()
    return 1 if daemon.failed else 0


if __name__ == "__main__":
    sys.exit(main())
