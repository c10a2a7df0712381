"""Feed saved smartctl text to pySMART and print what it makes of it, as JSON.

Run in a subprocess by test_pysmart_comparison.py: importing pySMART sets ``LANG=C`` in
``os.environ`` for the whole process, which must not leak into the test session.
Usage: python -m tests.collectors.smart.pysmart_probe FILE[=INTERFACE] ...
"""

from __future__ import annotations

import inspect
import json
import os
import sys


def probe(path: str, interface: str) -> dict:
    from pySMART import Device
    from pySMART.smartctl import Smartctl

    class Recorded(Smartctl):
        """Answers every smartctl call with the saved output and records the arguments."""

        def __init__(self, text: str) -> None:
            super().__init__(smartctl_path="/nonexistent/smartctl")
            self.text = text
            self.calls: list[list[str]] = []

        def generic_call(self, params, pass_options=False):  # type: ignore[no-untyped-def]
            self.calls.append(list(params) + (list(self.options) if pass_options else []))
            return self.text.splitlines(), 0

    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    sc = Recorded(text)
    sc.add_options(["-n", "standby"])
    name = "/dev/nvme0" if interface == "nvme" else "/dev/sdx"
    out: dict = {"file": os.path.basename(path)}
    try:
        dev = Device(name, interface=interface, smartctl=sc)
    except Exception as exc:  # noqa: BLE001 - recording what pySMART does with real output
        out["exception"] = type(exc).__name__
        out["calls"] = sc.calls
        return out
    attrs = [a for a in dev.attributes if a is not None]
    out.update(
        calls=sc.calls,
        model=dev.model,
        serial=dev.serial,
        firmware=dev.firmware,
        assessment=dev.assessment,
        temperature=dev.temperature,
        attributes=len(attrs),
        raw={str(a.num): a.raw for a in attrs},
        tests=len(dev.tests),
    )
    return out


def main(argv: list[str]) -> None:
    lang_before = os.environ.get("LANG")
    import pySMART
    from pySMART.smartctl import Smartctl

    facts = {
        "version": getattr(pySMART, "__version__", None),
        "lang_forced_to": os.environ.get("LANG") if os.environ.get("LANG") != lang_before else None,
        "exec_has_timeout": "timeout" in inspect.getsource(Smartctl._exec),
        "uses_json": any(
            "--json" in inspect.getsource(m) or "'-j'" in inspect.getsource(m)
            for m in (Smartctl.generic_call, Smartctl.all, Smartctl.info)
        ),
        "results": [],
    }
    for arg in argv:
        path, _, interface = arg.partition("=")
        facts["results"].append(probe(path, interface or "sat"))
    json.dump(facts, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
