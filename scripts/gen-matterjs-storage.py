#!/usr/bin/env python3
"""Generate a matterjs-server storage folder from a python-matter-server storage folder.

    gen-matterjs-storage.py FROM_PMS_DIR OUT_DIR [--driver wal|file] [--gzip]
                            [--wal-commits N] [--rotate] [--keep-legacy]
                            [--vendor-id V] [--fabric-id F] [--seed S] [--now MS]

Writes what matterjs-server 1.4.1-alpha.1 (c68e9d7c, @matter/* 0.17.9) has on disk after it took
the python-matter-server home over at its first start (LegacyDataInjector "direct injection") and
connected to the nodes once:

    OUT_DIR/server-<fabricId hex>-<vendorId hex>/   the controller node's namespace
    OUT_DIR/config/                                 ConfigStorage (context "values")
    OUT_DIR/chip.json, OUT_DIR/<CFID>.json[.backup] only with --keep-legacy

Every format fact, with its source file, is in docs/design/matterjs-storage.md.  Python 3 standard
library only: the P-256 arithmetic (controller key, NOC signature) is implemented below.
Test material only: the output holds the source's CA private keys in clear, as matterjs-server does.
"""

import argparse
import base64
import copy
import datetime
import gzip
import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import struct
import sys
import time
import urllib.parse

# ---------------------------------------------------------------------------------------------
# JS value model and matter.js StringifyTools.toJson
# (matter.js packages/general/src/storage/StringifyTools.ts)
# ---------------------------------------------------------------------------------------------


class Big(int):
    """A JS bigint (NodeId, FabricId, GlobalFabricId, certificate IDs, ...)."""


class _Undefined:
    def __repr__(self):
        return "undefined"


UNDEF = _Undefined()  # a JS `undefined` stored explicitly
MAX_SAFE = 2**53 - 1


def _marker_bigint(v):
    return '{"__object__":"BigInt","__value__":"%d"}' % int(v)


def _marker_bytes(v):
    return '{"__object__":"Uint8Array","__value__":"%s"}' % bytes(v).hex()


MARKER_UNDEFINED = '{"__object__":"Undefined"}'


def js_ready(v):
    """Apply toJson's replacer: bigint, Uint8Array and undefined become strings holding JSON."""
    if v is UNDEF:
        return MARKER_UNDEFINED
    if isinstance(v, Big):
        return _marker_bigint(v)
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        # parseBigIntAwareJson (matterjs-server) turns integers outside the safe range into bigint
        return _marker_bigint(v) if abs(v) > MAX_SAFE else v
    if isinstance(v, float):
        return int(v) if v.is_integer() and abs(v) < 1e21 else v
    if isinstance(v, (bytes, bytearray)):
        return _marker_bytes(v)
    if isinstance(v, (list, tuple)):
        return [js_ready(x) for x in v]
    if isinstance(v, dict):
        return {str(k): js_ready(x) for k, x in v.items()}
    raise TypeError("unsupported value %r" % (v,))


def to_json(v, indent=None):
    """JSON.stringify(value, replacer, indent) as matter.js toJson writes it."""
    if indent is None:
        return json.dumps(js_ready(v), ensure_ascii=False, separators=(",", ":"))
    return json.dumps(js_ready(v), ensure_ascii=False, indent=indent)


# ---------------------------------------------------------------------------------------------
# Crypto: HKDF-SHA256, P-256 ECDSA (RFC 6979 nonces)
# ---------------------------------------------------------------------------------------------


def hkdf(ikm, salt, info, length):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out += t
        i += 1
    return out[:length]


P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
A = P - 3
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
     0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)


def _jac_double(p):
    x, y, z = p
    if y == 0 or z == 0:
        return (0, 1, 0)
    ysq = y * y % P
    s = 4 * x * ysq % P
    zsq = z * z % P
    m = 3 * (x - zsq) * (x + zsq) % P
    nx = (m * m - 2 * s) % P
    ny = (m * (s - nx) - 8 * ysq * ysq) % P
    nz = 2 * y * z % P
    return (nx, ny, nz)


def _jac_add(p, q):
    if p[2] == 0:
        return q
    if q[2] == 0:
        return p
    x1, y1, z1 = p
    x2, y2, z2 = q
    z1s, z2s = z1 * z1 % P, z2 * z2 % P
    u1, u2 = x1 * z2s % P, x2 * z1s % P
    s1, s2 = y1 * z2s * z2 % P, y2 * z1s * z1 % P
    if u1 == u2:
        return _jac_double(p) if s1 == s2 else (0, 1, 0)
    h, r = (u2 - u1) % P, (s2 - s1) % P
    h2 = h * h % P
    h3 = h * h2 % P
    u1h2 = u1 * h2 % P
    nx = (r * r - h3 - 2 * u1h2) % P
    ny = (r * (u1h2 - nx) - s1 * h3) % P
    nz = h * z1 * z2 % P
    return (nx, ny, nz)


def ec_mul(k, point):
    res, add = (0, 1, 0), (point[0], point[1], 1)
    while k:
        if k & 1:
            res = _jac_add(res, add)
        add = _jac_double(add)
        k >>= 1
    if res[2] == 0:
        raise ValueError("point at infinity")
    zi = pow(res[2], P - 2, P)
    return (res[0] * zi * zi % P, res[1] * zi * zi * zi % P)


def ec_add(p, q):
    r = _jac_add((p[0], p[1], 1), (q[0], q[1], 1))
    zi = pow(r[2], P - 2, P)
    return (r[0] * zi * zi % P, r[1] * zi * zi * zi % P)


def pub_from_priv(d):
    x, y = ec_mul(d, G)
    return b"\x04" + x.to_bytes(32, "big") + y.to_bytes(32, "big")


def _point(pub):
    if len(pub) != 65 or pub[0] != 4:
        raise ValueError("not an uncompressed P-256 public key")
    x, y = int.from_bytes(pub[1:33], "big"), int.from_bytes(pub[33:], "big")
    if (y * y - (x * x * x + A * x + B)) % P:
        raise ValueError("public key not on P-256")
    return (x, y)


def _rfc6979_k(d, h1):
    x = d.to_bytes(32, "big")
    h = (int.from_bytes(h1, "big") % N).to_bytes(32, "big")
    v, k = b"\x01" * 32, b"\x00" * 32
    k = hmac.new(k, v + b"\x00" + x + h, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    k = hmac.new(k, v + b"\x01" + x + h, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    while True:
        v = hmac.new(k, v, hashlib.sha256).digest()
        cand = int.from_bytes(v, "big")
        if 1 <= cand < N:
            return cand
        k = hmac.new(k, v + b"\x00", hashlib.sha256).digest()
        v = hmac.new(k, v, hashlib.sha256).digest()


def ecdsa_sign(d, msg):
    """Raw r||s (64 bytes), as Matter TLV certificates hold it."""
    h1 = hashlib.sha256(msg).digest()
    e = int.from_bytes(h1, "big")
    while True:
        k = _rfc6979_k(d, h1)
        r = ec_mul(k, G)[0] % N
        s = pow(k, N - 2, N) * (e + r * d) % N
        if r and s:
            return r.to_bytes(32, "big") + s.to_bytes(32, "big")
        h1 = hashlib.sha256(h1).digest()


def ecdsa_verify(pub, msg, sig):
    r, s = int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")
    if not (1 <= r < N and 1 <= s < N):
        return False
    e = int.from_bytes(hashlib.sha256(msg).digest(), "big")
    w = pow(s, N - 2, N)
    pt = ec_add(ec_mul(e * w % N, G), ec_mul(r * w % N, _point(pub)))
    return pt[0] % N == r


def new_private_key(seed, label):
    if seed is None:
        return secrets.randbelow(N - 1) + 1
    v = int.from_bytes(hmac.new(seed.encode(), label.encode(), hashlib.sha256).digest(), "big")
    return v % (N - 1) + 1


# ---------------------------------------------------------------------------------------------
# Matter TLV (Core spec appendix A): enough to read chip.json values and certificates, and to
# write a NOC.  Containers are lists of Tlv items, order preserved.
# ---------------------------------------------------------------------------------------------


class Tlv:
    __slots__ = ("tag", "kind", "value")

    def __init__(self, tag, kind, value):
        self.tag, self.kind, self.value = tag, kind, value

    def __repr__(self):
        return "Tlv(%r,%s,%r)" % (self.tag, self.kind, self.value)

    def get(self, tag):
        for it in self.value:
            if it.tag == tag:
                return it
        return None


def tlv_decode(data):
    items, pos = _tlv_read(data, 0, top=True)
    if pos != len(data) or len(items) != 1:
        raise ValueError("trailing TLV data")
    return items[0]


def _tlv_read(data, pos, top=False):
    out = []
    while pos < len(data):
        ctl = data[pos]
        pos += 1
        etype, tctl = ctl & 0x1F, ctl >> 5
        if etype == 0x18:
            if top:
                raise ValueError("unexpected end of container")
            return out, pos
        tag = None
        tlen = [0, 1, 2, 4, 2, 4, 6, 8][tctl]
        if tlen:
            tag = int.from_bytes(data[pos:pos + tlen], "little")
            if tctl != 1:
                tag = ("p", tctl, tag)
            pos += tlen
        if etype <= 0x07:
            size = 1 << (etype & 3)
            raw = data[pos:pos + size]
            pos += size
            item = Tlv(tag, "int" if etype <= 3 else "uint", int.from_bytes(raw, "little", signed=etype <= 3))
        elif etype in (0x08, 0x09):
            item = Tlv(tag, "bool", etype == 0x09)
        elif etype in (0x0A, 0x0B):
            size = 4 if etype == 0x0A else 8
            item = Tlv(tag, "float", struct.unpack("<f" if size == 4 else "<d", data[pos:pos + size])[0])
            pos += size
        elif 0x0C <= etype <= 0x13:
            lsize = 1 << (etype & 3)
            ln = int.from_bytes(data[pos:pos + lsize], "little")
            pos += lsize
            raw = bytes(data[pos:pos + ln])
            pos += ln
            item = Tlv(tag, "str" if etype <= 0x0F else "bytes", raw.decode("utf-8") if etype <= 0x0F else raw)
        elif etype == 0x14:
            item = Tlv(tag, "null", None)
        elif etype in (0x15, 0x16, 0x17):
            children, pos = _tlv_read(data, pos)
            item = Tlv(tag, {0x15: "struct", 0x16: "array", 0x17: "list"}[etype], children)
        else:
            raise ValueError("bad TLV element type %#x" % etype)
        out.append(item)
        if top:
            return out, pos
    if not top:
        raise ValueError("unterminated TLV container")
    return out, pos


def tlv_encode(item):
    if item.tag is None:
        tctl, tagb = 0, b""
    elif isinstance(item.tag, int):
        tctl, tagb = 1, bytes([item.tag])
    else:
        raise ValueError("profile tags not supported for writing")
    k, v = item.kind, item.value

    def ctl(t):
        return bytes([(tctl << 5) | t]) + tagb

    if k == "uint":
        size = 0 if v < 1 << 8 else 1 if v < 1 << 16 else 2 if v < 1 << 32 else 3
        return ctl(0x04 + size) + v.to_bytes(1 << size, "little")
    if k == "int":
        for size in range(4):
            if -(1 << (8 * (1 << size) - 1)) <= v < 1 << (8 * (1 << size) - 1):
                return ctl(size) + v.to_bytes(1 << size, "little", signed=True)
    if k == "bool":
        return ctl(0x09 if v else 0x08)
    if k == "null":
        return ctl(0x14)
    if k in ("str", "bytes"):
        raw = v.encode("utf-8") if k == "str" else bytes(v)
        size = 0 if len(raw) < 1 << 8 else 1 if len(raw) < 1 << 16 else 2
        return ctl((0x0C if k == "str" else 0x10) + size) + len(raw).to_bytes(1 << size, "little") + raw
    if k in ("struct", "array", "list"):
        return ctl({"struct": 0x15, "array": 0x16, "list": 0x17}[k]) + b"".join(map(tlv_encode, v)) + b"\x18"
    raise ValueError("cannot encode %r" % (item,))


# ---------------------------------------------------------------------------------------------
# Matter TLV certificate -> X.509 DER (Core spec 6.5.x), used to sign the controller's new NOC
# and to check the conversion against the DER copies PMS keeps.
# ---------------------------------------------------------------------------------------------


def _der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def _der(tag, content):
    return bytes([tag]) + _der_len(len(content)) + content


def _der_seq(*parts):
    return _der(0x30, b"".join(parts))


def _der_oid(dotted):
    nums = [int(x) for x in dotted.split(".")]
    out = bytes([40 * nums[0] + nums[1]])
    for n in nums[2:]:
        enc = [n & 0x7F]
        n >>= 7
        while n:
            enc.append(0x80 | (n & 0x7F))
            n >>= 7
        out += bytes(reversed(enc))
    return _der(0x06, out)


def _der_uint(v):
    b = v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big")
    if b[0] & 0x80:
        b = b"\x00" + b
    return _der(0x02, b)


_DN_OIDS = {1: "2.5.4.3", 2: "2.5.4.4", 3: "2.5.4.5", 4: "2.5.4.6", 5: "2.5.4.7", 6: "2.5.4.8",
            7: "2.5.4.10", 8: "2.5.4.11", 9: "2.5.4.12", 10: "2.5.4.41", 11: "2.5.4.42", 12: "2.5.4.43",
            13: "2.5.4.44", 14: "2.5.4.46", 15: "2.5.4.65", 16: "0.9.2342.19200300.100.1.25",
            17: "1.3.6.1.4.1.37244.1.1", 18: "1.3.6.1.4.1.37244.1.2", 19: "1.3.6.1.4.1.37244.1.3",
            20: "1.3.6.1.4.1.37244.1.4", 21: "1.3.6.1.4.1.37244.1.5", 22: "1.3.6.1.4.1.37244.1.6"}


def _der_name(dn):
    rdns = []
    for it in dn.value:
        tag = it.tag
        base = tag & 0x7F
        oid = _DN_OIDS[base]
        if base in (17, 19, 20, 21):
            val = _der(0x0C, ("%016X" % it.value).encode())
        elif base in (18, 22):
            val = _der(0x0C, ("%08X" % it.value).encode())
        elif base == 16:
            val = _der(0x16, it.value.encode())
        else:
            val = _der(0x13 if tag & 0x80 else 0x0C, it.value.encode())
        rdns.append(_der(0x31, _der_seq(_der_oid(oid), val)))
    return _der_seq(*rdns)


MATTER_EPOCH_S = 946684800


def _der_time(epoch_s, is_not_after):
    if epoch_s == 0 and is_not_after:
        return _der(0x18, b"99991231235959Z")
    t = datetime.datetime.fromtimestamp(epoch_s + MATTER_EPOCH_S, datetime.timezone.utc)
    if 1950 <= t.year < 2050:
        return _der(0x17, t.strftime("%y%m%d%H%M%SZ").encode())
    return _der(0x18, t.strftime("%Y%m%d%H%M%SZ").encode())


_EKU = {1: "1.3.6.1.5.5.7.3.1", 2: "1.3.6.1.5.5.7.3.2", 3: "1.3.6.1.5.5.7.3.3", 4: "1.3.6.1.5.5.7.3.4",
        5: "1.3.6.1.5.5.7.3.8", 6: "1.3.6.1.5.5.7.3.9"}
_TRUE = _der(0x01, b"\xff")


def _der_extensions(exts):
    out = []
    for it in exts.value:
        if it.tag == 1:  # basicConstraints
            isca = it.get(1)
            plen = it.get(2)
            inner = (_TRUE if isca is not None and isca.value else b"") + (_der_uint(plen.value) if plen else b"")
            out.append(_der_seq(_der_oid("2.5.29.19"), _TRUE, _der(0x04, _der_seq(inner))))
        elif it.tag == 2:  # keyUsage: TLV bit i == X.509 named bit i
            v = it.value
            nbits = v.bit_length()
            nbytes = (nbits + 7) // 8
            rev = 0
            for i in range(nbits):
                if v >> i & 1:
                    rev |= 1 << (nbytes * 8 - 1 - i)
            unused = nbytes * 8 - nbits
            bs = bytes([unused]) + rev.to_bytes(nbytes, "big")
            out.append(_der_seq(_der_oid("2.5.29.15"), _TRUE, _der(0x04, _der(0x03, bs))))
        elif it.tag == 3:  # extendedKeyUsage
            oids = b"".join(_der_oid(_EKU[e.value]) for e in it.value)
            out.append(_der_seq(_der_oid("2.5.29.37"), _TRUE, _der(0x04, _der_seq(oids))))
        elif it.tag == 4:  # subjectKeyIdentifier
            out.append(_der_seq(_der_oid("2.5.29.14"), _der(0x04, _der(0x04, it.value))))
        elif it.tag == 5:  # authorityKeyIdentifier
            out.append(_der_seq(_der_oid("2.5.29.35"), _der(0x04, _der_seq(_der(0x80, it.value)))))
        elif it.tag == 6:  # future extension: DER as is
            out.append(it.value)
    return _der(0xA3, _der_seq(*out))


def cert_tbs_der(cert):
    f = {it.tag: it for it in cert.value}
    if f[2].value != 1 or f[7].value != 1 or f[8].value != 1:
        raise ValueError("only ecdsa-with-SHA256 / P-256 certificates are supported")
    return _der_seq(
        _der(0xA0, _der_uint(2)),
        _der(0x02, f[1].value),
        _der_seq(_der_oid("1.2.840.10045.4.3.2")),
        _der_name(f[3]),
        _der_seq(_der_time(f[4].value, False), _der_time(f[5].value, True)),
        _der_name(f[6]),
        _der_seq(_der_seq(_der_oid("1.2.840.10045.2.1"), _der_oid("1.2.840.10045.3.1.7")),
                 _der(0x03, b"\x00" + f[9].value)),
        _der_extensions(f[10]),
    )


def cert_der(cert):
    sig = cert.get(11).value
    r, s = int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")
    return _der_seq(cert_tbs_der(cert), _der_seq(_der_oid("1.2.840.10045.4.3.2")),
                    _der(0x03, b"\x00" + _der_seq(_der_uint(r), _der_uint(s))))


def cert_info(tlv_bytes):
    c = tlv_decode(tlv_bytes)
    subj = {it.tag: it.value for it in c.get(6).value}
    ext = {it.tag: it.value for it in c.get(10).value}
    return {"tlv": c, "subject": subj, "pub": c.get(9).value, "ski": ext.get(4), "aki": ext.get(5),
            "notAfter": c.get(5).value}


# ---------------------------------------------------------------------------------------------
# matter.js identifier camelize (packages/general/src/util/identifier-case.ts), ported as is
# ---------------------------------------------------------------------------------------------


def camelize(name, upper_first=False):
    pieces = []
    st = {"start": 0, "upper": False, "lower": False}

    def add(to):
        if st["start"] < to:
            pieces.append(name[st["start"]:to])
        st["lower"] = st["upper"] = False

    i = 0
    while i < len(name):
        ch = name[i]
        if ch == "$":
            break
        if "A" <= ch <= "Z":
            if st["lower"]:
                add(i)
                st["start"] = i
            st["upper"] = True
            i += 1
            continue
        if "a" <= ch <= "z":
            if not st["lower"] and st["upper"]:
                add(i - 1)
                st["start"] = i - 1
            st["lower"] = True
            i += 1
            continue
        add(i)
        if "0" <= ch <= "9" or ch == "$":
            pieces.append(ch)
        st["start"] = i + 1
        i += 1
    add(i)
    out, did_first = [], False
    for p in pieces:
        first = p[0]
        if upper_first or did_first:
            first = first.upper()
        else:
            first = first.lower()
            did_first = True
        out.append(first + p[1:].lower())
    res = re.sub(r"(\d)Ths", r"\1ths", "".join(out), flags=re.I)
    if i < len(name):
        res += name[i:]
    return res


# ---------------------------------------------------------------------------------------------
# The part of the matter.js 0.17.9 data model this generator knows (packages/model/src/standard/
# elements/*.element.ts).  Specs:  "p" pass-through, "bytes", "epoch-s", "epoch-us",
# ("list", spec), ("struct", [(id, Name, spec, mandatory, nullable)]), ("bitmap", [(bit, Name)]).
# Clusters absent here are handled the way LegacyDataInjector handles clusters unknown to matter.js.
# ---------------------------------------------------------------------------------------------

L = lambda s: ("list", s)  # noqa: E731
S = lambda *f: ("struct", list(f))  # noqa: E731

ACE = S((1, "Privilege", "p", True, False), (2, "AuthMode", "p", True, False),
        (3, "Subjects", L("p"), True, True),
        (4, "Targets", L(S((0, "Cluster", "p", True, True), (1, "Endpoint", "p", True, True),
                           (2, "DeviceType", "p", True, True))), True, True),
        (5, "AuxiliaryType", "p", False, False), (254, "FabricIndex", "p", True, False))
def _merge(a, b):
    return {**a, **b}


RESTRICTION = S((0, "Type", "p", True, False), (1, "Id", "p", True, True))

MODEL = {
    0x1D: ("Descriptor", [(0, "TagList")], {
        0: L(S((0, "DeviceType", "p", True, False), (1, "Revision", "p", True, False))),
        1: L("p"), 2: L("p"), 3: L("p"),
        4: L(S((0, "MfgCode", "p", True, True), (1, "NamespaceId", "p", True, False),
               (2, "Tag", "p", True, False), (3, "Label", "p", False, True))),
        5: "p"}),
    0x1F: ("AccessControl", [(0, "Extension"), (1, "ManagedDevice"), (2, "Auxiliary")], {
        0: L(ACE),
        1: L(S((1, "Data", "bytes", True, False), (254, "FabricIndex", "p", True, False))),
        2: "p", 3: "p", 4: "p",
        5: L(S((0, "Endpoint", "p", True, False), (1, "Cluster", "p", True, False),
               (2, "Restrictions", L(RESTRICTION), True, False))),
        6: L(S((0, "Endpoint", "p", True, False), (1, "Cluster", "p", True, False),
               (2, "Restrictions", L(RESTRICTION), True, False), (254, "FabricIndex", "p", True, False))),
        7: L(ACE)}),
    0x28: ("BasicInformation", [], _merge(
        {a: "p" for a in list(range(0, 0x13)) + [0x15, 0x16, 0x18]},
        {0x13: S((0, "CaseSessionsPerFabric", "p", True, False), (1, "SubscriptionsPerFabric", "p", True, False),
                   (2, "SimultaneousInvocationsSupported", "p", False, False),
                   (3, "SimultaneousWritesSupported", "p", False, False),
                   (4, "ReadPathsSupported", "p", False, False), (5, "SubscribePathsSupported", "p", False, False)),
           0x14: S((0, "Finish", "p", True, False), (1, "PrimaryColor", "p", True, True))})),
    0x30: ("GeneralCommissioning", [(0, "TermsAndConditions"), (1, "NetworkRecovery")], {
        0: "p", 1: S((0, "FailSafeExpiryLengthSeconds", "p", True, False),
                     (1, "MaxCumulativeFailsafeSeconds", "p", True, False)),
        2: "p", 3: "p", 4: "p", 5: "p", 6: "p", 7: ("bitmap", []), 8: "p", 9: "p", 0xA: "bytes", 0xB: "p",
        0xC: "p"}),
    0x31: ("NetworkCommissioning", [(0, "WiFiNetworkInterface"), (1, "ThreadNetworkInterface"),
                                    (2, "EthernetNetworkInterface")], {
        0: "p", 1: L(S((0, "NetworkId", "bytes", True, False), (1, "Connected", "p", True, False))),
        2: "p", 3: "p", 4: "p", 5: "p", 6: "bytes", 7: "p", 8: L("p"),
        9: ("bitmap", [(0, "IsBorderRouterCapable"), (1, "IsRouterCapable"), (2, "IsSleepyEndDeviceCapable"),
                       (3, "IsFullThreadDevice"), (4, "IsSynchronizedSleepyEndDeviceCapable")]),
        0xA: "p"}),
    0x33: ("GeneralDiagnostics", [(0, "DataModelTest")], {
        0: L(S((0, "Name", "p", True, False), (1, "IsOperational", "p", True, False),
               (2, "OffPremiseServicesReachableIPv4", "p", True, True),
               (3, "OffPremiseServicesReachableIPv6", "p", True, True),
               (4, "HardwareAddress", "bytes", True, False), (5, "IPv4Addresses", L("bytes"), True, False),
               (6, "IPv6Addresses", L("bytes"), True, False), (7, "Type", "p", True, False))),
        1: "p", 2: "p", 3: "p", 4: "p", 5: L("p"), 6: L("p"), 7: L("p"), 8: "p",
        0xA: S((0, "CurrentSubscriptions", "p", True, False), (1, "CurrentSubscriptionsForFabric", "p", True, False),
               (2, "TotalSubscriptionsEstablished", "p", True, False),
               (3, "TotalInteractionModelMessagesSent", "p", True, False),
               (4, "TotalInteractionModelMessagesReceived", "p", True, False))}),
    0x3C: ("AdministratorCommissioning", [(0, "Basic")], {0: "p", 1: "p", 2: "p"}),
    0x3E: ("OperationalCredentials", [], {
        0: L(S((1, "Noc", "bytes", True, False), (2, "Icac", "bytes", True, True), (3, "Vvsc", "bytes", False, False),
               (254, "FabricIndex", "p", True, False))),
        1: L(S((1, "RootPublicKey", "bytes", True, False), (2, "VendorId", "p", True, False),
               (3, "FabricId", "p", True, False), (4, "NodeId", "p", True, False), (5, "Label", "p", True, False),
               (6, "VidVerificationStatement", "bytes", False, False), (254, "FabricIndex", "p", True, False))),
        2: "p", 3: "p", 4: L("bytes"), 5: "p"}),
    0x06: ("OnOff", [(0, "Lighting"), (1, "DeadFrontBehavior"), (2, "OffOnly")], {
        0: "p", 0x4000: "p", 0x4001: "p", 0x4002: "p", 0x4003: "p"}),
    0x08: ("LevelControl", [(0, "OnOff"), (1, "Lighting"), (2, "Frequency")], _merge(
        {a: "p" for a in [0, 1, 2, 3, 4, 5, 6, 0x10, 0x11, 0x12, 0x13, 0x14, 0x4000]},
        {0xF: ("bitmap", [(0, "ExecuteIfOff"), (1, "CoupleColorTempToLevel")])})),
}
GLOBAL_ATTRS = {0xFFF8: L("p"), 0xFFF9: L("p"), 0xFFFB: L("p"), 0xFFFD: "p"}  # 0xFFFC FeatureMap: below

# LegacyDataInjector.ts BASE64_REGEX / isPrimitiveType (used for clusters matter.js does not know)
BASE64_RE = re.compile(r"^([0-9a-z+/]{4})*(([0-9a-z+/]{2}==)|([0-9a-z+/]{3}=))?$", re.I)


def _is_primitive(v):
    return (v is None or isinstance(v, bool) or isinstance(v, (int, float))
            or (isinstance(v, str) and not BASE64_RE.match(v)))


def convert(value, spec):
    """Converters.ts convertWebSocketTagBasedToMatter for one model node."""
    if value is None:
        return None
    if isinstance(spec, tuple) and spec[0] == "list" and isinstance(value, list):
        return [convert(v, spec[1]) for v in value]
    if isinstance(spec, tuple) and spec[0] == "struct" and isinstance(value, dict):
        by_id = {f[0]: f for f in spec[1]}
        by_name = {camelize(f[1]): f for f in spec[1]}
        out = {}
        for k, v in value.items():
            f = by_id.get(int(k)) if re.fullmatch(r"\d+", k) else by_name.get(k)
            if f is None:
                out[k] = v  # unknown field: kept as is
                continue
            _, name, fspec, mandatory, nullable = f
            if v is None and not mandatory and not nullable:
                continue
            out[camelize(name)] = convert(v, fspec)
        return out
    if isinstance(spec, tuple) and spec[0] in ("bitmap", "features"):
        if isinstance(value, int) and not isinstance(value, bool):
            return {camelize(name): bool(value & (1 << bit)) for bit, name in spec[1]}
        return value
    if spec == "bytes" and isinstance(value, str):
        return base64.b64decode(value, validate=True)
    if spec == "epoch-s" and isinstance(value, int):
        return value + MATTER_EPOCH_S
    if spec == "epoch-us" and isinstance(value, int):
        return Big(value + MATTER_EPOCH_S * 1000000)
    return value


def convert_attribute(cluster_id, attr_id, value, warn):
    """One "ep/cluster/attr" value as LegacyDataInjector.injectAsDirectInjection stores it.

    Returns (store, value)."""
    entry = MODEL.get(cluster_id)
    spec = None
    if entry is not None:
        spec = GLOBAL_ATTRS.get(attr_id) or entry[2].get(attr_id)
        if attr_id == 0xFFFC:
            spec = ("features", entry[1])
    if spec is None:
        if entry is None:
            warn.add("cluster %d is not in this generator's model table: treated as unknown to matter.js" % cluster_id)
        else:
            warn.add("attribute %d/%d is not in this generator's model table: treated as unknown" % (cluster_id, attr_id))
        if attr_id == 0xFFFC:
            return True, {}
        if _is_primitive(value) or (isinstance(value, list) and all(_is_primitive(v) for v in value)):
            return True, value
        return False, None
    if isinstance(value, dict) and ("TLVValue" in value or "Reason" in value):
        return False, None
    return True, convert(value, spec)


# ---------------------------------------------------------------------------------------------
# Reading python-matter-server's storage
# ---------------------------------------------------------------------------------------------

CHIP_DEFAULT_IPK = b"temporary ipk 01"


def load_pms(src, vendor_id, fabric_id):
    with open(os.path.join(src, "chip.json")) as f:
        sdk = {k: base64.b64decode(v) for k, v in json.load(f)["sdk-config"].items()}

    # ChipConfigData.ts: fabric indices from f/<hex>/..., pick the one whose metadata vendor and NOC
    # fabric ID match --vendor-id/--fabric-id (LegacyDataLoader.ts loadLegacyData)
    indices = sorted({int(m.group(1), 16) for k in sdk for m in [re.match(r"^f/([0-9a-f]+)/", k)] if m})
    chosen = None
    for idx in indices:
        h = "%x" % idx
        if not all(("f/%s/%s" % (h, s)) in sdk for s in ("r", "n", "m", "k/0")):
            continue
        meta = tlv_decode(sdk["f/%s/m" % h])
        noc = cert_info(sdk["f/%s/n" % h])
        if meta.get(0).value == vendor_id and noc["subject"].get(21) == fabric_id:
            chosen = (idx, h, meta, noc)
            break
    if chosen is None:
        sys.exit("no fabric in chip.json matches vendorId=0x%x fabricId=%d" % (vendor_id, fabric_id))
    idx, h, meta, noc = chosen
    label_item = meta.get(1)

    # ExampleOpCredsCAKey<n> etc.: ChipConfigData.ts parses <n> as decimal and prefers set 1
    sets = sorted({int(m.group(1)) for k in sdk for m in [re.match(r"^ExampleOpCredsCAKey(\d+)$", k)] if m})
    cs = 1 if 1 in sets else sets[0]
    ca_key = sdk["ExampleOpCredsCAKey%d" % cs]
    ca_der = sdk["ExampleCARootCert%d" % cs]
    ica_key = sdk.get("ExampleOpCredsICAKey%d" % cs)
    ica_der = sdk.get("ExampleCAIntermediateCert%d" % cs)
    for k in (ca_key, ica_key):
        if k is not None and (len(k) != 97 or k[0] != 4):
            sys.exit("only the 97-byte raw key-pair layout is supported (SEC1 DER keys are not)")

    rcac_tlv = sdk["f/%s/r" % h]
    icac_tlv = sdk.get("f/%s/i" % h)
    rcac = cert_info(rcac_tlv)
    # The CA config stores the DER certs re-encoded as TLV (Rcac.fromAsn1(...).asSignedTlv()); we use
    # f/<idx>/r and /i and check that they encode back to exactly those DER bytes.
    if cert_der(rcac["tlv"]) != ca_der:
        sys.exit("f/%s/r does not encode to ExampleCARootCert%d" % (h, cs))
    if rcac["pub"] != ca_key[:65]:
        sys.exit("ExampleOpCredsCAKey%d does not match the root certificate" % cs)
    icac = None
    if ica_key is not None and ica_der is not None and icac_tlv is not None:
        icac = cert_info(icac_tlv)
        if cert_der(icac["tlv"]) != ica_der:
            sys.exit("f/%s/i does not encode to ExampleCAIntermediateCert%d" % (h, cs))
        if icac["pub"] != ica_key[:65]:
            sys.exit("ExampleOpCredsICAKey%d does not match the ICAC" % cs)
        if not ecdsa_verify(rcac["pub"], cert_tbs_der(icac["tlv"]), icac["tlv"].get(11).value):
            sys.exit("ICAC signature does not verify")
    signer_pub = icac["pub"] if icac else rcac["pub"]
    if not ecdsa_verify(signer_pub, cert_tbs_der(noc["tlv"]), noc["tlv"].get(11).value):
        sys.exit("controller NOC f/%s/n does not verify against the CA" % h)

    fabric_id_v = noc["subject"][21]
    cfid = int.from_bytes(hkdf(rcac["pub"][1:], fabric_id_v.to_bytes(8, "big"), b"CompressedFabric", 8), "big")

    ipk_set = tlv_decode(sdk["f/%s/k/0" % h])
    stored_op_ipk = ipk_set.get(3).value[0].get(6).value
    op_ipk = hkdf(CHIP_DEFAULT_IPK, cfid.to_bytes(8, "big"), b"GroupKey v1.0", 16)
    if stored_op_ipk != op_ipk:
        print("warning: f/%s/k/0 does not hold HKDF(\"temporary ipk 01\"); matterjs-server uses the "
              "default epoch key regardless (ChipConfigData.getFabricConfig)" % h, file=sys.stderr)

    node_file = None
    for name in ("%d.json" % cfid, "%d.json.backup" % cfid):
        p = os.path.join(src, name)
        try:
            with open(p) as f:
                node_file = json.load(f)
            break
        except (OSError, ValueError):
            continue

    nxt = max(rcac["subject"][20] + 1, (icac["subject"][19] + 1) if icac else 0)
    ca = {"rootCertId": Big(rcac["subject"][20]),
          "rootKeyPair": {"publicKey": ca_key[:65], "privateKey": ca_key[65:]},
          "rootKeyIdentifier": rcac["ski"],
          "rootCertBytes": rcac_tlv,
          "nextCertificateId": Big(nxt)}
    if icac:
        ca.update({"icacCertId": Big(icac["subject"][19]),
                   "icacKeyPair": {"publicKey": ica_key[:65], "privateKey": ica_key[65:]},
                   "icacKeyIdentifier": icac["ski"],
                   "icacCertBytes": icac_tlv})
    return {"fabric_index": idx, "fabric_id": fabric_id_v, "node_id": noc["subject"][17],
            "vendor_id": vendor_id, "label": label_item.value if label_item else "",
            "rcac": rcac, "rcac_tlv": rcac_tlv, "icac": icac, "icac_tlv": icac_tlv, "noc": noc,
            "signer_priv": int.from_bytes((ica_key if icac else ca_key)[65:], "big"),
            "cfid": cfid, "op_ipk": op_ipk, "ca": ca, "nodes": node_file,
            "chip_path": os.path.join(src, "chip.json")}


# ---------------------------------------------------------------------------------------------
# Building matterjs-server's state
# ---------------------------------------------------------------------------------------------

YEAR_S = 365 * 24 * 3600


def issue_noc(pms, priv, serial, now_s):
    """CertificateAuthority.generateNoc: a NOC for `priv`'s public key, same subject as PMS's one."""
    pub = pub_from_priv(priv)
    template = copy.deepcopy(pms["noc"]["tlv"])
    f = {it.tag: it for it in template.value}
    f[1].value = serial.to_bytes(max(1, (serial.bit_length() + 7) // 8), "big")
    f[4].value = now_s - MATTER_EPOCH_S - YEAR_S  # jsToMatterDate(now, -1)
    f[5].value = now_s - MATTER_EPOCH_S + 10 * YEAR_S  # jsToMatterDate(now, 10)
    f[9].value = pub
    signer = pms["icac"] or pms["rcac"]
    for it in f[10].value:
        if it.tag == 4:
            it.value = hashlib.sha1(pub).digest()
        elif it.tag == 5:
            it.value = signer["ski"]
    template.value = [it for it in template.value if it.tag != 11]
    sig = ecdsa_sign(pms["signer_priv"], cert_tbs_der(template))
    template.value.append(Tlv(11, "bytes", sig))
    noc = tlv_encode(template)
    assert ecdsa_verify(signer["pub"], cert_tbs_der(tlv_decode(noc)), sig)
    return pub, noc


def fabric_config(pms, priv, noc, label):
    """Fabric.config (matter.js packages/protocol/src/fabric/Fabric.ts), in its key order."""
    return {
        "fabricIndex": pms["fabric_index"],
        "fabricId": Big(pms["fabric_id"]),
        "nodeId": Big(pms["node_id"]),
        "rootNodeId": Big(pms["node_id"]),  # LegacyFabricConfigData.rootNodeId = NOC node ID
        "globalId": Big(pms["cfid"]),
        "rootPublicKey": pms["rcac"]["pub"],
        "keyPair": {"publicKey": pub_from_priv(priv), "privateKey": priv.to_bytes(32, "big")},
        "rootVendorId": pms["vendor_id"],
        "rootCert": pms["rcac_tlv"],
        "identityProtectionKey": CHIP_DEFAULT_IPK,
        "operationalIdentityProtectionKey": pms["op_ipk"],
        "intermediateCACert": pms["icac_tlv"] if pms["icac_tlv"] is not None else UNDEF,
        "operationalCert": noc,
        "vidVerificationStatement": UNDEF,
        "label": label,
        "operationalId": pms["cfid"].to_bytes(8, "big"),
    }


def most_common_label(nodes):
    counts = {}
    for nd in nodes.values():
        cur = nd.get("attributes", {}).get("0/62/5")
        fabs = nd.get("attributes", {}).get("0/62/1")
        if not isinstance(cur, int) or not isinstance(fabs, list):
            continue
        for fd in fabs:
            if isinstance(fd, dict) and fd.get("254") == cur:
                lab = fd.get("5")
                if isinstance(lab, str) and lab:
                    counts[lab] = counts.get(lab, 0) + 1
                break
    best, n = None, 0
    for lab, c in counts.items():
        if c > n:
            best, n = lab, c
    return best


def js_node_order(keys):
    """Object.entries order: array-index keys ascending first, then the rest in insertion order."""
    idx = [k for k in keys if re.fullmatch(r"0|[1-9]\d*", k) and int(k) < 2**32 - 1]
    return sorted(idx, key=int) + [k for k in keys if k not in idx]


def parse_pms_time(s):
    # JS `new Date("2026-12-04T15:12:08.998615")` reads a time without offset as LOCAL time; we take UTC.
    dt = datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=datetime.timezone.utc)
    return int(dt.timestamp() * 1000)


def build(pms, args, now_ms):
    """Returns (server_writes, config_writes, post_ops, warnings).

    A write is (context, {key: value}) = one WAL `upd`; post_ops are extra WAL ops that follow."""
    warn = set()
    now_s = now_ms // 1000
    nodes = (pms["nodes"] or {}).get("nodes") or {}
    w = []

    # 1. LegacyDataInjector.injectCredentials: CA config into `credentials`, a first rotated fabric
    #    (fresh key, fresh NOC) into credentials.fabric and fabrics.fabrics
    ca = pms["ca"]
    w.append(("credentials", dict(ca)))
    key_a = new_private_key(args.seed, "controller-key-injected")
    _, noc_a = issue_noc(pms, key_a, int(ca["nextCertificateId"]), now_s)
    cfg_a = fabric_config(pms, key_a, noc_a, pms["label"])
    w.append(("credentials", {"fabric": cfg_a}))
    w.append(("fabrics", {"fabrics": [cfg_a]}))

    # 2. LegacyDataInjector.injectAsDirectInjection
    t = now_ms
    order = js_node_order(list(nodes.keys()))
    for n, nid in enumerate(order, start=1):
        nd = nodes[nid]
        node_id = int(nid)
        peer = "nodes.peer%d.endpoints" % n
        w.append((peer + ".0.commissioning",
                  {"peerAddress": {"fabricIndex": pms["fabric_index"], "nodeId": Big(node_id)},
                   "discoveredAt": t}))
        clusters = {}
        first = None
        for key, value in nd.get("attributes", {}).items():
            ep, cl, at = key.split("/")
            ctx = "%s.%s.%s" % (peer, ep, cl)
            if ctx not in clusters:
                if first is None:
                    first = (ep, cl)
                clusters[ctx] = {"__version__": 1}
            ok, conv = convert_attribute(int(cl), int(at), value, warn)
            if ok:
                clusters[ctx][at] = conv
        if first is not None:
            w.append(("node-%s.%s.%s" % (nid, first[0], first[1]), {"__version__": 1}))
        w.extend(clusters.items())
    if order:
        w.append(("nodes", {"commissionedNodes": [[Big(int(nid)), {}] for nid in order]}))

    # 3. matter.js MatterController.create copies `credentials` (except `fabric`) to `certificates`
    w.append(("certificates", dict(ca)))

    # 4. FabricAuthority.defaultFabric at the first start: NOC key rotated, label set to the
    #    ConfigStorage fabricLabel, FabricManager.persistFabrics writes {fabrics, nextFabricIndex}
    label = most_common_label(nodes)
    fabric_label = label if label and label != "HomeAssistant" else "HomeAssistant"
    key_b = new_private_key(args.seed, "controller-key-rotated")
    _, noc_b = issue_noc(pms, key_b, int(ca["nextCertificateId"]), now_s + 5)
    cfg_b = fabric_config(pms, key_b, noc_b, fabric_label)
    w.append(("fabrics", {"fabrics": [cfg_b], "nextFabricIndex": 1}))

    # 5. The nodes reached over CASE: CommissioningClient state completed
    for n, nid in enumerate(order, start=1):
        nd = nodes[nid]
        node_id = int(nid)
        vals = {}
        if nd.get("date_commissioned"):
            vals["commissionedAt"] = parse_pms_time(nd["date_commissioned"])  # injectCommissionedDates
        vals["addresses"] = [{"ip": "fe80::ff:fe00:%x%%eth0" % node_id, "port": 5540, "type": "udp"}]
        cur = nd.get("attributes", {}).get("0/62/5")
        if isinstance(cur, int) and cur:
            vals["fabricIndexOnPeer"] = cur  # #backfillFabricIndexOnPeer
        w.append(("nodes.peer%d.endpoints.0.commissioning" % n, vals))

    # Extra WAL ops after the snapshot: a subscription report changing a value the snapshot has, and
    # deletes (a key of a context; a context with its sub-contexts)
    post = []
    if order:
        n1 = nodes[order[0]]["attributes"]
        change = None
        for key, value in n1.items():
            ep, cl, at = key.split("/")
            if isinstance(value, bool) and int(cl) == 6:
                change = ("nodes.peer1.endpoints.%s.%s" % (ep, cl), at, not value)
                break
        if change is None:
            change = ("nodes.peer1.endpoints.0.40", "5", "renamed by a test")
        post.append([{"op": "upd", "key": change[0], "values": {change[1]: change[2], "__version__": 2}}])
        victim = None  # the last null-valued attribute of peer1 (1/8/16384 StartUpCurrentLevel in the vector)
        for ctx, vals in w:
            if ctx.startswith("nodes.peer1.endpoints.") and ctx.count(".") == 4 and not ctx.endswith("commissioning"):
                for k, v in vals.items():
                    if v is None and k != "__version__" and not (ctx == change[0] and k == change[1]):
                        victim = (ctx, k)
        dels = [{"op": "del", "key": "node-%s" % order[0]}]
        if victim:
            dels.append({"op": "del", "key": victim[0], "values": [victim[1]]})
        post.append(dels)

    # ConfigStorage.open sets all five keys (one commit each); MatterController.create raises
    # nextNodeId to last_node_id + 10 as a bigint when it is not above last_node_id
    cw = [("values", {"fabricLabel": "HomeAssistant"}), ("values", {"nextNodeId": 1}),
          ("values", {"wifiSsid": UNDEF}), ("values", {"wifiCredentials": UNDEF}),
          ("values", {"threadDataset": UNDEF})]
    if fabric_label != "HomeAssistant":
        cw.append(("values", {"fabricLabel": fabric_label}))
    last = (pms["nodes"] or {}).get("last_node_id")
    if isinstance(last, int) and 1 <= last:
        cw.append(("values", {"nextNodeId": Big(last + 10)}))
    return w, cw, post, warn


# ---------------------------------------------------------------------------------------------
# Drivers
# ---------------------------------------------------------------------------------------------


def apply_commit(store, ops):
    """WalTransaction.ts applyCommit."""
    for op in ops:
        if op["op"] == "upd":
            store.setdefault(op["key"], {}).update(op["values"])
        elif op["op"] == "del":
            if "values" in op:
                for k in op["values"]:
                    store.get(op["key"], {}).pop(k, None)
            elif op["key"] == "":
                store.clear()
            else:
                store.pop(op["key"], None)
                for k in [k for k in store if k.startswith(op["key"] + ".")]:
                    del store[k]


def write_driver_json(ns_dir, kind):
    with open(os.path.join(ns_dir, "driver.json"), "w") as f:
        f.write(json.dumps({"kind": kind, "type": "kv"}, indent=2))  # StorageService #writeDescriptor


def write_wal(ns_dir, writes, post, args, ts0):
    """WalStorageDriver: snapshot.json[.gz] + wal/<segment %08x>.jsonl; one commit per write."""
    os.makedirs(os.path.join(ns_dir, "wal"))
    write_driver_json(ns_dir, "wal")
    commits = [[{"op": "upd", "key": ctx, "values": vals}] for ctx, vals in writes]
    n_after = min(args.wal_commits, len(commits) - 1) if args.wal_commits else 0
    before = commits[:len(commits) - n_after]
    after = commits[len(commits) - n_after:] + (post if args.wal_commits else [])
    ts = ts0
    lines_before, lines_after, store = [], [], {}
    for ops in before:
        ts += 7
        apply_commit(store, ops)
        lines_before.append(to_json({"ts": ts, "ops": ops}))
    snap_ts = ts
    for ops in after:
        ts += 7
        lines_after.append(to_json({"ts": ts, "ops": ops}))
    # segment numbering starts at 1, the offset is the 0-based line number in the segment
    # (WalWriter.ts #openSegment, WalReader.ts read)
    if args.rotate and lines_after:
        segs = {1: lines_before, 2: lines_after}  # segment 1 rotated and gzip-compressed
    else:
        segs = {1: lines_before + lines_after}
    for seg, lines in segs.items():
        text = "".join(line + "\n" for line in lines).encode()
        name = "%08x.jsonl" % seg
        if args.rotate and len(segs) > 1 and seg == 1:
            with open(os.path.join(ns_dir, "wal", name + ".gz"), "wb") as f:
                f.write(gzip.compress(text, mtime=0))
        else:
            with open(os.path.join(ns_dir, "wal", name), "wb") as f:
                f.write(text)
    snapshot = {"commitId": {"segment": 1, "offset": len(lines_before) - 1}, "ts": snap_ts, "data": store}
    text = to_json(snapshot, 2).encode()  # WalSnapshot.save: toJson(snapshot, 2)
    if args.gzip:
        with open(os.path.join(ns_dir, "snapshot.json.gz"), "wb") as f:
            f.write(gzip.compress(text, mtime=0))
    else:
        with open(os.path.join(ns_dir, "snapshot.json"), "wb") as f:
            f.write(text)


def file_name(ctx, key):
    """FileStorageDriver.buildStorageKey: encodeURIComponent, then ! ' ( ) * escaped too."""
    return urllib.parse.quote(ctx + "." + key if ctx else key, safe="-_.~")


def write_file_driver(ns_dir, writes, post):
    os.makedirs(ns_dir)
    write_driver_json(ns_dir, "file")
    store = {}
    for ctx, vals in writes:
        apply_commit(store, [{"op": "upd", "key": ctx, "values": vals}])
    for ctx, vals in store.items():
        for k, v in vals.items():
            with open(os.path.join(ns_dir, file_name(ctx, k)), "w", encoding="utf-8") as f:
                f.write(to_json(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", metavar="FROM_PMS_DIR")
    ap.add_argument("out", metavar="OUT_DIR")
    ap.add_argument("--driver", choices=("wal", "file"), default="wal")
    ap.add_argument("--gzip", action="store_true", help="wal: snapshot.json.gz (matterjs-server's default)")
    ap.add_argument("--wal-commits", type=int, default=0, metavar="N",
                    help="wal: the last N writes, an upd of a snapshot value and a del follow the snapshot")
    ap.add_argument("--rotate", action="store_true",
                    help="wal: commits covered by the snapshot in a rotated 00000001.jsonl.gz, the rest in 00000002.jsonl")
    ap.add_argument("--keep-legacy", action="store_true", help="copy chip.json and <CFID>.json[.backup] to OUT_DIR")
    ap.add_argument("--vendor-id", type=lambda s: int(s, 0), default=0xFFF1)
    ap.add_argument("--fabric-id", type=lambda s: int(s, 0), default=1)
    ap.add_argument("--seed", help="derive the controller keys from this string (reproducible output)")
    ap.add_argument("--now", type=int, help="clock in Unix ms (default: now)")
    args = ap.parse_args()
    if args.driver == "file" and (args.gzip or args.wal_commits or args.rotate):
        ap.error("--gzip, --wal-commits and --rotate apply to --driver wal only")

    pms = load_pms(args.src, args.vendor_id, args.fabric_id)
    now_ms = args.now if args.now is not None else int(time.time() * 1000)
    writes, cwrites, post, warn = build(pms, args, now_ms)
    for wmsg in sorted(warn):
        print("warning: " + wmsg, file=sys.stderr)

    server_id = "server-%x-%x" % (pms["fabric_id"], pms["vendor_id"])  # ServerIdResolver.computeServerId
    os.makedirs(args.out, exist_ok=True)
    for ns in (server_id, "config"):
        if os.path.exists(os.path.join(args.out, ns)):
            sys.exit("%s already exists" % os.path.join(args.out, ns))
    if args.driver == "wal":
        write_wal(os.path.join(args.out, server_id), writes, post, args, now_ms)
        a = argparse.Namespace(**vars(args))
        a.wal_commits, a.rotate = 0, False
        write_wal(os.path.join(args.out, "config"), cwrites, [], a, now_ms)
    else:
        write_file_driver(os.path.join(args.out, server_id), writes, post)
        write_file_driver(os.path.join(args.out, "config"), cwrites, [])
    if args.keep_legacy:
        shutil.copy2(pms["chip_path"], args.out)
        for name in ("%d.json" % pms["cfid"], "%d.json.backup" % pms["cfid"]):
            p = os.path.join(args.src, name)
            if os.path.exists(p):
                shutil.copy2(p, args.out)
    print("%s/%s: fabric %d vendor 0x%04x CFID %016X, %d node(s)" % (
        args.out, server_id, pms["fabric_id"], pms["vendor_id"], pms["cfid"], len((pms["nodes"] or {}).get("nodes") or {})))


if __name__ == "__main__":
    main()
