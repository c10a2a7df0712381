"""The HTTP side: the web app (/metrics, the status page), its server, TLS and auth config."""
