#!/usr/bin/env python3
"""Writes the hand-made seed corpus of each fuzz target to corpus/<target>/.

The seeds are committed; this script documents them and makes them again
(python3 seeds.py, from this folder). Each file is named for what it is.
"""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def mr_desc(raddr, size, rkey, usage):
    """A memory-region descriptor: u64 addr, u64 size, u32 rkey (LE), usage."""
    return struct.pack("<QQI", raddr, size, rkey) + bytes([usage])


READ_SRC, READ_DST, WRITE_SRC, WRITE_DST = 1, 2, 4, 8
FLUSH_VISIBILITY, FLUSH_PERSISTENT, SEND, RECV = 16, 32, 64, 128

VALID = mr_desc(0x7F1234560000, 4096, 0x1234ABCD, WRITE_DST | FLUSH_VISIBILITY)

SEEDS = {
    "mr_descriptor": {
        "valid-write-dst-visibility": VALID,
        "valid-read-src-persistent": mr_desc(0x1000, 1 << 30, 7, READ_SRC | FLUSH_PERSISTENT),
        "valid-all-usage-bits": mr_desc(0, 0, 0, 0xFF),
        "valid-max-fields": mr_desc(2**64 - 1, 2**64 - 1, 2**32 - 1, RECV),
        "valid-trailing-bytes": VALID + b"\x00\xff\x01",
        "invalid-usage-zero": mr_desc(0x1000, 4096, 1, 0),
        "invalid-20-bytes": VALID[:20],
        "invalid-1-byte": b"\x08",
        "invalid-empty": b"",
    },
    "peer_cfg_descriptor": {
        "supported": b"\x01",
        "unsupported": b"\x00",
        "supported-0x80": b"\x80",
        "unsupported-trailing": b"\x00\x01\x01",
        "supported-trailing": b"\x01\x00",
        "invalid-empty": b"",
    },
}

# conn_req_private_data: flags byte, then the request's private data.
# bit 0: not a connect request (type = flags >> 3); bit 1: NULL pointer;
# bit 2: accept and check the connection too.
APP_DATA = VALID + b"\x01"  # what applications send: an MR and a peer cfg
SEEDS["conn_req_private_data"] = {
    "none": b"\x00",
    "app-descriptors": b"\x00" + APP_DATA,
    "app-descriptors-accepted": b"\x04" + APP_DATA,
    "roce-req-56": b"\x00" + APP_DATA + bytes(56 - len(APP_DATA)),
    "roce-rep-196-accepted": b"\x04" + bytes(range(196)),
    "max-255": b"\x00" + bytes((i * 7) & 0xFF for i in range(255)),
    "one-byte-accepted": b"\x04\x2a",
    "null-pointer-len-10": b"\x02" + bytes(10),
    "established-on-listener": bytes([1 | (9 << 3)]) + b"abcd",
    "device-removal-on-listener": bytes([1 | (11 << 3)]),
}

# conn_private_data: flags byte, then events (type byte, length byte, data).
# flags bit 0: passive; bit 1: active connects with the first event's bytes;
# bit 2: passive request carries the first event's bytes.
# type byte: bits 0-3 the rdma_cm type, bit 4 NULL pointer, bit 5 +16.
ESTABLISHED, DISCONNECTED, TIMEWAIT_EXIT = 9, 10, 15
CONNECT_ERROR, UNREACHABLE, REJECTED, DEVICE_REMOVAL = 5, 6, 8, 11


def ev(kind, data=b"", null=False, length=None):
    ty = (kind & 0x0F) | (0x20 if kind >= 16 else 0) | (0x10 if null else 0)
    n = len(data) if length is None else length
    return bytes([ty, n]) + data


SEEDS["conn_private_data"] = {
    "active-established-196-closed": b"\x00"
    + ev(ESTABLISHED, bytes(range(196)))
    + ev(DISCONNECTED)
    + ev(TIMEWAIT_EXIT),
    "active-own-pdata-established-56": b"\x02"
    + ev(ESTABLISHED, APP_DATA + bytes(56 - len(APP_DATA))),
    "active-established-empty-then-data": b"\x00"
    + ev(ESTABLISHED)
    + ev(ESTABLISHED, b"late")
    + ev(ESTABLISHED, b"ignored"),
    "active-established-null-then-255": b"\x00"
    + ev(ESTABLISHED, null=True, length=200)
    + ev(ESTABLISHED, bytes(255)),
    "active-failures": b"\x00"
    + ev(REJECTED, b"r")
    + ev(UNREACHABLE)
    + ev(CONNECT_ERROR)
    + ev(19, b"unknown")
    + ev(DEVICE_REMOVAL),
    "passive-request-data-kept": b"\x05"
    + ev(ESTABLISHED, APP_DATA)
    + ev(ESTABLISHED, b"other")
    + ev(DISCONNECTED),
    "passive-no-request-data": b"\x01"
    + ev(ESTABLISHED, b"from-established")
    + ev(DISCONNECTED),
    "truncated-event": b"\x00" + bytes([ESTABLISHED, 40]) + b"short",
}


# remote_ops: descriptor (21), peer cfg byte, op byte (low 3 bits % 5: read,
# write, write_with_imm, atomic_write, flush; bit 7: length + 2^32), flags
# byte, flush type (i32 LE), offset (u64 LE), length (u32 LE).
READ, WRITE, WRITE_IMM, ATOMIC, FLUSH = range(5)
ALWAYS, ON_ERROR = 2, 4


def remote_op(desc, direct, op, flags, offset=0, length=0, flush_type=0):
    return (desc + bytes([direct, op, flags]) + struct.pack("<i", flush_type)
            + struct.pack("<QI", offset, length))


RW = mr_desc(0x7F0000001000, 1 << 20, 0xABCD, READ_SRC | WRITE_DST | FLUSH_VISIBILITY)
PMEM = mr_desc(0x7F0000001000, 1 << 20, 0xABCD, WRITE_DST | FLUSH_PERSISTENT)
SEEDS["remote_ops"] = {
    "read-4096": remote_op(RW, 0, READ, ALWAYS, 64, 4096),
    "write-on-error": remote_op(RW, 0, WRITE, ON_ERROR, 128, 100),
    "write-imm": remote_op(RW, 1, WRITE_IMM, ALWAYS, 0, 8),
    "write-zero-length": remote_op(RW, 0, WRITE, ALWAYS, 0, 0),
    "atomic-aligned": remote_op(PMEM, 1, ATOMIC, ALWAYS, 8),
    "atomic-misaligned": remote_op(PMEM, 1, ATOMIC, ALWAYS, 3),
    "flush-persistent-allowed": remote_op(PMEM, 1, FLUSH, ALWAYS, 0, 64, 0),
    "flush-persistent-no-direct-write": remote_op(PMEM, 0, FLUSH, ALWAYS, 0, 64, 0),
    "flush-visibility-not-in-usage": remote_op(PMEM, 1, FLUSH, ALWAYS, 0, 64, 1),
    "flush-visibility-allowed": remote_op(RW, 0, FLUSH, ON_ERROR, 0, 64, 1),
    "flush-other-type": remote_op(RW, 0, FLUSH, ALWAYS, 0, 64, 7),
    "flags-zero": remote_op(RW, 0, READ, 0, 0, 8),
    "wrapping-address": remote_op(mr_desc(2**64 - 16, 4096, 1, WRITE_DST), 0, WRITE, ALWAYS,
                                  2**64 - 1, 32),
    "length-over-4g": remote_op(RW, 0, 0x80 | READ, ALWAYS, 0, 5),
    "short-input": RW + b"\x01",
}


def main():
    for target, seeds in SEEDS.items():
        folder = os.path.join(HERE, "corpus", target)
        os.makedirs(folder, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
