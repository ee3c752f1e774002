"""The security headers of every answer a page server of the project gives (:mod:`sim.web`)."""

#: the policy of a page of this project: its own script, style and requests, nothing else
STRICT_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
                 "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")

#: the policy of a page built on viser's prebuilt client, which runs inline scripts and workers from
#: ``blob:`` URLs; it still fetches nothing from elsewhere and only a page of this server may frame it
VISER_CLIENT_POLICY = ("default-src 'self' data: blob:; script-src 'self' 'unsafe-inline' 'unsafe-eval' blob:; "
                       "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; worker-src 'self' blob:; "
                       "connect-src 'self' data: blob:; frame-ancestors 'self'; base-uri 'none'; form-action 'none'")

#: the policy of a self-contained page (a turn-based replay): its own inline code, nothing fetched
INLINE_ONLY_POLICY = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
                      "frame-ancestors 'none'; base-uri 'none'; form-action 'none'")

#: headers of every answer; ``Content-Security-Policy`` is the handler's :attr:`WebHandler.policy`
#: unless an answer names another
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
}
