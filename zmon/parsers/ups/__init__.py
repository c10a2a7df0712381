"""Parsers for UPS daemons (NUT upsd, apcupsd) into one typed reading."""
