"""E-mail addresses as one mailbox, as the integrity signals and the one sign-up bonus per mailbox compare them."""

from __future__ import annotations

#: Domains that ignore dots in the local part and deliver ``name+tag@`` to ``name@``.
GMAIL = {"gmail.com", "googlemail.com"}


def email_key(address: str) -> str:
    """``Asha.Rao+rummy@GMail.com`` and ``asharao@gmail.com`` give one key; "" for no address.

    Every domain: lower case and any ``+tag`` dropped (most providers deliver it to the same
    mailbox); Gmail's: dots in the local part dropped too, ``googlemail.com`` read as ``gmail.com``.
    """
    address = (address or "").strip().lower()
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain:
        return ""
    local = local.split("+", 1)[0]
    if domain in GMAIL:
        local, domain = local.replace(".", ""), "gmail.com"
    return f"{local}@{domain}" if local else ""
