"""The demo host: a simulated ZFS host replayed from real captures.

It changes nothing in how zmon collects: collectors run the same commands through the same
runner and read the same kstat files. The demo only supplies the host: small programs named
``zpool``, ``zfs``, ``smartctl`` ... that print recorded outputs of the current phase, a
procfs tree whose counters advance over time, a sysfs block tree with ``/dev/disk`` links,
a ``/var/log/kern.log`` that grows with the story, and a NUT server for its UPS.
"""
