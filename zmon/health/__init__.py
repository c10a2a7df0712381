"""zmon's judgment of a host: each alert condition declared once.

A declaration (``declarations.py``) is built from expression nodes (``expr.py``) that render
the PromQL of the shipped Prometheus rule and evaluate the same condition in Python over zmon's
own recent history (``store.py``), so Prometheus and zmon judge a host by one text.
"""
