"""The lab VM: real OpenZFS in qemu (TCG), zmon serving inside, scraped from the host.

`make lab` (tests/lab/build.sh) builds the kernel, the OpenZFS modules and one initramfs per
version into $ZMON_LAB_CACHE and writes the manifest ``lab.env`` this module reads. The guest
runs tests/lab/guest/driver.sh, which publishes each step of the fault sequence as
``ctl/steps/<step>.ready`` and waits for ``<step>.ack``; the host scrapes zmon through a
forwarded port in between.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.helpers import stop_process_group
from tests.support.ports import free_port

LAB_DIR = Path(__file__).resolve().parent
GUEST_DIR = LAB_DIR / "guest"
CACHE = Path(os.environ.get("ZMON_LAB_CACHE", "/var/cache/zmon-lab"))
GUEST_PORT = 10124

# Emulated disks: (id prefix, count, size, qemu device). Serial numbers ZL<KIND><n>.
DISKS = (("sata", 4, "1G"), ("virt", 6, "512M"), ("nvme", 2, "1G"))


class LabError(RuntimeError):
    """The VM or the guest driver did not do what the run needs."""


# Every process a lab run starts (qemu, Prometheus, upsd, drivers) leads its own process
# group; if the run is stopped (SIGTERM, SIGHUP, exit) those groups are killed too.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def track(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None:
        _CHILDREN[proc.pid] = proc


def reap_children() -> None:
    for pid, proc in list(_CHILDREN.items()):
        if proc.poll() is None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
        _CHILDREN.pop(pid, None)


def install_reaper() -> None:
    """Kill the lab's processes when this one is told to stop (call from the main thread)."""
    atexit.register(reap_children)

    def stop(signum: int, _frame: object) -> None:
        reap_children()
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)


@dataclass(frozen=True)
class Manifest:
    kver: str
    kernel: Path
    zmon_site: Path
    initrds: dict[str, Path]
    debvers: dict[str, str]

    @classmethod
    def load(cls, cache: Path = CACHE) -> Manifest | None:
        """The manifest build.sh wrote, or None when the lab was never built."""
        path = cache / "lab.env"
        if not path.is_file():
            return None
        env: dict[str, str] = {}
        for line in path.read_text().splitlines():
            key, sep, value = line.partition("=")
            if sep:
                env[key.strip()] = value.strip()
        initrds = {
            k[7:].replace("_", "."): Path(v) for k, v in env.items() if k.startswith("INITRD_")
        }
        debvers = {k[7:].replace("_", "."): v for k, v in env.items() if k.startswith("DEBVER_")}
        return cls(
            env.get("KVER", ""),
            Path(env.get("KERNEL", "")),
            Path(env.get("ZMON_SITE", "")),
            initrds,
            debvers,
        )

    def missing(self, version: str) -> str | None:
        """Why this version cannot boot (a missing artifact), or None."""
        for what, path in (
            ("kernel", self.kernel),
            ("zmon layer", self.zmon_site),
            ("initramfs", self.initrds.get(version)),
        ):
            if path is None or not path.exists():
                return f"{what} for OpenZFS {version} not built ({path}); run `make lab`"
        return None


def read_facts(path: Path) -> dict[str, str]:
    facts: dict[str, str] = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep:
            facts[key] = value
    return facts


class LabVM:
    """One boot of the lab VM for one OpenZFS version; use as a context manager."""

    def __init__(
        self,
        manifest: Manifest,
        version: str,
        run_dir: Path,
        zmon_args: Sequence[str],
        *,
        setpriv: Sequence[str] = (),
        capture: bool = False,
        driver: str = "driver.sh",
        smp: int = 2,
        mem_mib: int = 3072,
        progress: Callable[[str], None] = lambda _msg: None,
    ) -> None:
        self.manifest = manifest
        self.version = version
        self.run_dir = run_dir
        self.ctl = run_dir / "ctl"
        self.steps = self.ctl / "steps"
        self.console = run_dir / "console.log"
        self.capture = capture
        self.driver = driver
        self.zmon_args = list(zmon_args)
        self.setpriv = list(setpriv)  # how guest/common.sh starts zmon (the unit's privileges)
        self.smp, self.mem = smp, mem_mib
        self.progress = progress
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.started = 0.0

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> LabVM:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _qemu_argv(self) -> list[str]:
        m = self.manifest
        disks = self.run_dir / "disks"
        argv = [
            "qemu-system-x86_64", "-accel", os.environ.get("ZMON_LAB_ACCEL", "tcg,thread=multi"),
            "-smp", str(self.smp), "-m", str(self.mem),
            "-nographic", "-no-reboot", "-monitor", "none",
            "-kernel", str(m.kernel), "-initrd", str(m.initrds[self.version]),
            "-append", "console=ttyS0 panic=-1 quiet loglevel=4 "
                       f"zmonlab_capture={int(self.capture)} zmonlab_driver={self.driver} "
                       + os.environ.get("ZMON_LAB_APPEND", ""),
            *_share("lab", GUEST_DIR, readonly=True),
            *_share("zmon", m.zmon_site, readonly=True),
            *_share("ctl", self.ctl, readonly=False),
            "-nic", f"user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:{self.port}-:{GUEST_PORT}",
            "-device", "ahci,id=ahci0",
        ]  # fmt: skip
        for kind, count, size in DISKS:
            for i in range(count):
                img = disks / f"{kind}{i}.img"
                with img.open("wb") as f:
                    f.truncate(_size(size))
                drive = f"if=none,id={kind}{i},file={img},format=raw,cache=unsafe"
                serial = f"ZL{kind.upper()}{i}"
                if kind == "sata":
                    dev = f"ide-hd,bus=ahci0.{i},drive={kind}{i},serial={serial}"
                elif kind == "virt":
                    drive += ",discard=unmap"
                    dev = f"virtio-blk-pci,drive={kind}{i},serial={serial}"
                else:
                    dev = f"nvme,drive={kind}{i},serial={serial}"
                argv += ["-drive", drive, "-device", dev]
        return argv

    def start(self) -> None:
        why = self.manifest.missing(self.version)
        if why:
            raise LabError(why)
        for d in (self.steps, self.run_dir / "disks"):
            d.mkdir(parents=True, exist_ok=True)
        (self.ctl / "zmon.args").write_text("".join(a + "\n" for a in self.zmon_args))
        (self.ctl / "zmon.setpriv").write_text("".join(a + "\n" for a in self.setpriv))
        self.port = free_port()
        argv = self._qemu_argv()
        (self.run_dir / "qemu.argv").write_text(" ".join(argv) + "\n")
        self.progress(
            f"booting OpenZFS {self.version} VM (TCG), zmon on 127.0.0.1:{self.port}, "
            f"run dir {self.run_dir}"
        )
        self.started = time.monotonic()
        with self.console.open("wb") as out:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        track(self.proc)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self, grace: float = 60.0) -> None:
        """Tell the guest to finish, wait for its power-off, then kill qemu if needed."""
        if self.proc is None:
            return
        if self.alive():
            (self.steps / "abort").touch()
            try:
                self.proc.wait(grace)
            except subprocess.TimeoutExpired:
                stop_process_group(self.proc)
        shutil.rmtree(self.run_dir / "disks", ignore_errors=True)

    def wait_poweroff(self, timeout: float = 120.0) -> int:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise LabError(f"the VM did not power off within {timeout:.0f} s") from None

    # ------------------------------------------------------------------ handshake
    def wait_ready(self, step: str, timeout: float = 900.0) -> dict[str, str]:
        """Facts of a step once the guest published it."""
        path = self.steps / f"{step}.ready"
        deadline = time.monotonic() + timeout
        while not path.exists():
            if not self.alive():
                raise LabError(
                    f"the VM stopped before step {step} "
                    f"(exit {self.proc.returncode if self.proc else '?'})"
                )
            if time.monotonic() > deadline:
                raise LabError(f"step {step} not ready after {timeout:.0f} s")
            time.sleep(0.5)
        facts = read_facts(path)
        self.progress(f"{self.version} {step}: ready at {time.monotonic() - self.started:.0f} s")
        return facts

    def ack(self, step: str) -> None:
        (self.steps / f"{step}.ack").touch()

    def finished(self) -> bool:
        return (self.steps / "done").exists()

    # ------------------------------------------------------------------ scraping
    def get(self, path: str = "/metrics", timeout: float = 20.0, unready: float = 180.0) -> str:
        """The page at ``path``. A 503 is zmon saying it has no snapshot yet or its worker
        is late (README: 503 until the first snapshot); under TCG three Python processes
        start slowly, so it is asked again, as Prometheus would scrape again, for up to
        ``unready`` seconds."""
        url = f"http://127.0.0.1:{self.port}{path}"
        deadline = time.monotonic() + unready
        while True:
            try:
                with urllib.request.urlopen(url, timeout=timeout) as r:
                    return bytes(r.read()).decode()
            except urllib.error.HTTPError as exc:
                if exc.code != 503 or time.monotonic() > deadline or not self.alive():
                    raise
                self.progress(f"{self.version}: zmon answered {path} with 503 (not ready)")
                time.sleep(1.0)

    def wait_http(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            if not self.alive():
                raise LabError("the VM stopped before zmon answered")
            try:
                self.get("/healthz", timeout=5)
                return
            except OSError as exc:
                last = exc
                time.sleep(1)
        raise LabError(f"zmon in the guest did not answer on port {self.port}: {last}")

    # ------------------------------------------------------------------ diagnostics
    def logs(self, lines: int = 120) -> str:
        """Tails of the guest console, the guest driver log and the zmon log."""
        parts = []
        sources = (
            ("guest console", self.console),
            ("guest driver", self.ctl / "guest.log"),
            ("zmon log", self.ctl / "zmon.log"),
            ("zed log", self.ctl / "zed.log"),
            ("zed mail", self.ctl / "zed-mail.log"),
            ("lead-time ramp", self.ctl / "ramp.log"),
        )
        for title, path in sources:
            if path.exists():
                text = path.read_text(errors="replace").splitlines()[-lines:]
                parts.append(
                    f"----- {title} ({path}), last {len(text)} lines -----\n" + "\n".join(text)
                )
        return "\n".join(parts)


def _share(tag: str, path: Path, *, readonly: bool) -> list[str]:
    """A 9p share the guest mounts by tag."""
    ro = ",readonly=on" if readonly else ""
    return ["-virtfs", f"local,path={path},mount_tag={tag},security_model=none{ro},id={tag}"]


def _size(text: str) -> int:
    units = {"M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]]
