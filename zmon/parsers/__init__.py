"""Pure parsers: functions from the bytes a source produced to typed data. No I/O here."""
