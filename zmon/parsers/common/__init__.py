"""Helpers every parser may use: ZFS's number formats, histograms, pasted output."""
