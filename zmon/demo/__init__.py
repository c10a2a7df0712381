"""The demo host: a simulated ZFS host replayed from real captures.

It changes nothing in how zmon collects: collectors run the same commands through the same
runner and read the same kstat files. The demo only supplies the host: small programs named
``zpool``, ``zfs``, ``smartctl`` ... that print recorded outputs of the current phase, and a
procfs tree whose counters advance over time.
"""
