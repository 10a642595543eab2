#!/usr/bin/env python3
"""Writes a small seed corpus of valid transaction buffers (docs/wire-format.md) for the fuzzer."""
import os
import struct
import sys

def s(x): b = x.encode(); return struct.pack('<H', len(b)) + b
def blob(b): return struct.pack('<H', len(b)) + b
def op(code, body, flags=0): return struct.pack('<BBI', code, flags, len(body)) + body
def txn(*ops): return struct.pack('<IHHI', 0x544e504b, 1, 0, len(ops)) + b''.join(ops)
def hdr(fam, table): return bytes([fam]) + s(table)
def verdict(code, chain=''): return struct.pack('<i', code) + s(chain)
def elem(key, kind=0, extra=b'', end=b'', flags=0, timeout=0):
    return blob(key) + blob(end) + struct.pack('<IB', flags, kind) + extra + struct.pack('<Q', timeout)

E = {
    'payload': bytes([1, 1]) + struct.pack('<III', 16, 4, 1),
    'meta': bytes([2, 0]) + struct.pack('<II', 16, 1),
    'cmp': bytes([3]) + struct.pack('<II', 1, 0) + blob(b'\x0a\x00\x00\x01'),
    'bitwise': bytes([4]) + struct.pack('<III', 1, 1, 4) + blob(b'\xff\xff\xff\x00') + blob(b'\0\0\0\0'),
    'lookup': bytes([5]) + struct.pack('<I', 1) + s('svc') + struct.pack('<IBII', 0, 1, 0, 0),
    'immediate': bytes([6]) + struct.pack('<I', 0) + verdict(-3, 'other'),
    'immdata': bytes([6]) + struct.pack('<I', 1) + blob(b'\x01\x02'),
    'nat': bytes([7]) + struct.pack('<IIIIIII', 1, 2, 1, 0, 9, 0, 2),
    'masq': bytes([8]) + struct.pack('<III', 16, 0, 0),
    'reject': bytes([9]) + struct.pack('<I', 0) + bytes([3]),
    'numgen': bytes([10]) + struct.pack('<IIII', 1, 3, 1, 0),
    'ct': bytes([11, 0]) + struct.pack('<I', 0) + bytes([255]) + struct.pack('<I', 1),
    'counter': bytes([12]),
    'fib': bytes([13]) + struct.pack('<III', 1, 3, 2),
    'dynset': bytes([14]) + struct.pack('<I', 1) + s('aff') + struct.pack('<IIIQI', 0, 1, 0, 10800000, 0),
    'notrack': bytes([15]),
}

def rule(*names):
    return op(7, hdr(2, 't') + s('c') + blob(b'') + struct.pack('<H', len(names)) + b''.join(E[n] for n in names))

seeds = {
    'table': txn(op(1, hdr(2, 't') + struct.pack('<I', 0))),
    'chain': txn(op(1, hdr(1, 't') + struct.pack('<I', 0)),
                 op(4, hdr(1, 't') + s('c') + b'\x01' + struct.pack('<Ii', 0, -100) + s('nat') + b'\x01')),
    'rule_all': txn(rule(*E.keys())),
    'rule_basic': txn(rule('payload', 'cmp', 'counter', 'immediate')),
    'set': txn(op(8, hdr(2, 't') + s('svc') + struct.pack('<IIIIIIQI', 7, 0x8 | 0x4, 7, 4, 0xffffff00, 0, 0, 0)
                  + b'\x02\x04\x02' + struct.pack('<I', 100) + blob(b'\x00\x04\x00\x00\x00\x00'), flags=1)),
    'elems': txn(op(11, hdr(2, 't') + s('svc') + struct.pack('<II', 7, 3)
                    + elem(b'\x0a\0\0\x01', 1, verdict(-3, 'x'))
                    + elem(b'\x0a\0\0\x02', 2, blob(b'\x01\x02\x03\x04'), timeout=5000)
                    + elem(b'\x0a\0\0\x00', 0, end=b'\x0a\0\0\xff', flags=1))),
    'misc': txn(op(2, hdr(2, 't')), op(3, hdr(10, 't')), op(5, hdr(1, 't') + s('c')), op(6, hdr(2, 't') + s('c')),
                op(9, hdr(2, 't') + s('s')), op(10, hdr(2, 't') + s('s')),
                op(12, hdr(2, 't') + s('s') + struct.pack('<II', 0, 1) + elem(b'\x01')),
                op(13, hdr(2, 't') + s('c') + struct.pack('<Q', 5))),
}

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'seeds', 'txn_decoder')
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name + '.bin'), 'wb') as f:
        f.write(data)
