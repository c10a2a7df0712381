#!/usr/bin/env python3
"""Measure PyNUTClient against zmon's own NUT protocol client (the numbers in ups.md).

Needs root, Debian's nut-server (upsd, dummy-ups) and PyNUTClient in the environment
(``pip install pynutclient`` in a scratch virtualenv; zmon does not depend on it).
Run from the repository root:  python -m benchmarks.ups_clients
"""

from __future__ import annotations

import multiprocessing as mp
import socket
import tempfile
import threading
import time
from pathlib import Path

from PyNUTClient.PyNUT import PyNUTClient

from tests.collectors.ups.nutlab import NutLab
from zmon.host.ups.net import Deadline, Endpoint
from zmon.host.ups.nut import NutClient

VARS = {
    "ups.status": "OL",
    "battery.charge": "100",
    "battery.runtime": "3600",
    "ups.load": "012.0",
    "input.voltage": "230.0",
    "ups.id": 'rack \\"A\\" left',
}
RUNS = 300


def against_real_upsd() -> None:
    with tempfile.TemporaryDirectory() as folder:
        lab = NutLab(Path(folder), {"dummy": VARS})
        conf = lab.root / "ups.conf"
        conf.write_text(conf.read_text().replace('"Test UPS dummy"', '"Rack \\"A\\" UPS"'))
        lab.start()
        try:
            time.sleep(3)  # let the driver leave WAIT
            theirs = PyNUTClient(host="127.0.0.1", port=lab.port, timeout=2)
            ours = NutClient(Endpoint("127.0.0.1", lab.port))
            ours.connect(Deadline(5))
            started = time.perf_counter()
            for _ in range(RUNS):
                theirs.GetUPSVars("dummy")
            t_theirs = (time.perf_counter() - started) / RUNS
            started = time.perf_counter()
            for _ in range(RUNS):
                ours.list_var("dummy", Deadline(5))
            t_ours = (time.perf_counter() - started) / RUNS
            print(
                f"LIST VAR on a kept connection, mean of {RUNS}: "
                f"PyNUTClient {t_theirs * 1e3:.2f} ms, zmon {t_ours * 1e3:.2f} ms"
            )
            print(
                f"value with escaped quotes: PyNUTClient "
                f"{theirs.GetUPSVars('dummy').get(b'ups.id')!r}, "
                f"zmon {ours.list_var('dummy', Deadline(5)).get('ups.id')!r}"
            )
            try:
                print(f"LIST UPS, quoted description: PyNUTClient {theirs.GetUPSList()!r}")
            except Exception as err:  # noqa: BLE001 - report whatever it raises
                print(
                    f"LIST UPS, quoted description: PyNUTClient raised {type(err).__name__}: {err}"
                )
            print(f"LIST UPS, quoted description: zmon {ours.list_ups(Deadline(5))!r}")
            ours.close()
        finally:
            lab.close()


def fake_upsd(behaviour: str) -> int:
    """One-connection server: 'eof' closes mid-list, 'trickle' sends a byte every 0.3 s."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def run() -> None:
        conn, _ = server.accept()
        conn.recv(1024)
        if behaviour == "eof":
            conn.sendall(b'BEGIN LIST VAR u\nVAR u ups.status "OL"\n')
            conn.close()
            return
        conn.sendall(b"BEGIN LIST VAR u\n")
        for byte in b'VAR u ups.status "OL"\n' * 50:
            time.sleep(0.3)
            try:
                conn.sendall(bytes([byte]))
            except OSError:
                return

    threading.Thread(target=run, daemon=True).start()
    return server.getsockname()[1]


def _pynut_child(port: int) -> None:
    PyNUTClient(host="127.0.0.1", port=port, timeout=1).GetUPSVars("u")


def pynut_outcome(behaviour: str, limit: float = 4.0) -> str:
    child = mp.Process(target=_pynut_child, args=(fake_upsd(behaviour),))
    started = time.perf_counter()
    child.start()
    child.join(limit)
    if child.is_alive():
        stat = Path(f"/proc/{child.pid}/stat").read_text().split()
        cpu = (int(stat[13]) + int(stat[14])) / 100
        child.kill()
        child.join()
        return f"still blocked after {limit:.0f} s (killed), {cpu:.1f} s of CPU burnt"
    return f"returned after {time.perf_counter() - started:.2f} s"


def zmon_outcome(behaviour: str) -> str:
    client = NutClient(Endpoint("127.0.0.1", fake_upsd(behaviour)))
    started = time.perf_counter()
    try:
        client.connect(Deadline(2))
        client.list_var("u", Deadline(2))
        result = "returned"
    except Exception as err:  # noqa: BLE001 - report whatever it raises
        result = f"raised {type(err).__name__}"
    return f"{result} after {time.perf_counter() - started:.2f} s"


if __name__ == "__main__":
    against_real_upsd()
    for case in ("eof", "trickle"):
        print(
            f"{case}: PyNUTClient(timeout=1) {pynut_outcome(case)}; "
            f"zmon (2 s deadline) {zmon_outcome(case)}"
        )
