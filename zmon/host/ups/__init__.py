"""Network clients for UPS daemons: NUT upsd (TCP 3493) and apcupsd NIS (TCP 3551).

Every socket operation is bounded by a connect timeout and by one deadline for the whole
query, so a dead or slow daemon costs at most that deadline.
"""
