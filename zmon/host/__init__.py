"""Host access: where collectors read the machine from.

Block devices and their names, kernel-log sources and the rotation-safe file follower, small
state files, the ``zpool``/``zfs`` command conventions and the UPS network clients. Nothing here
knows about collectors, the registry or metrics; collectors use these through their Context.
"""
