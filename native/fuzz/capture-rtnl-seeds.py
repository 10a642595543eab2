#!/usr/bin/env python3
"""Captures real NETLINK_ROUTE replies as seeds for the rtnl_replies fuzz target: link and address
dumps, one link by name (found and missing), and the acks of an address batch with failing ops
(sent as RtnlSocket sends them: CAP_ACK and EXT_ACK on). Also writes valid applyAddresses op buffers.
Runs in a scratch netns it creates and deletes. Root only.
Usage: capture-rtnl-seeds.py [seeds-dir]   (default: seeds/rtnl_replies next to this script)"""
import os
import socket
import struct
import subprocess
import sys

SOL_NETLINK, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 270, 10, 11
RTM_NEWLINK, RTM_GETLINK, RTM_NEWADDR, RTM_DELADDR, RTM_GETADDR = 16, 18, 20, 21, 22
NLM_F_REQUEST, NLM_F_ACK, NLM_F_EXCL, NLM_F_CREATE, NLM_F_DUMP = 1, 4, 0x200, 0x400, 0x300
IFLA_IFNAME, IFA_ADDRESS, IFA_LOCAL, IFA_FLAGS, IFA_F_NODAD = 3, 1, 2, 8, 0x02
NLMSG_DONE, NLMSG_ERROR = 3, 2


def attr(t, payload):
    a = struct.pack('=HH', 4 + len(payload), t) + payload
    return a + b'\0' * (-len(a) % 4)


def msg(t, flags, seq, body):
    return struct.pack('=IHHII', 16 + len(body), t, NLM_F_REQUEST | flags, seq, 0) + body


def addr_msg(add, family, index, raw, seq):
    flags = IFA_F_NODAD if add and family == socket.AF_INET6 else 0
    body = struct.pack('=BBBBI', family, len(raw) * 8, flags, 0, index)
    body += attr(IFA_LOCAL, raw) + attr(IFA_ADDRESS, raw)
    if flags:
        body += attr(IFA_FLAGS, struct.pack('=I', flags))
    return msg(RTM_NEWADDR if add else RTM_DELADDR, (NLM_F_CREATE | NLM_F_EXCL if add else 0) | NLM_F_ACK, seq, body)


def exchange(s, data, last_seq, dump):
    """Sends data and returns every reply datagram until the last message's ack or NLMSG_DONE."""
    s.send(data)
    grams = []
    while True:
        g = s.recv(1 << 20)
        grams.append(g)
        off = 0
        while off + 16 <= len(g):
            ln, typ, _, seq, _ = struct.unpack_from('=IHHII', g, off)
            if seq == last_seq and (typ == NLMSG_DONE or (typ == NLMSG_ERROR and not dump)):
                return grams
            off += (ln + 3) & ~3


def op_record(op, fam, prefix, index, raw):
    return struct.pack('<BBBBI', op, fam, prefix, 0, index) + raw + b'\0' * (16 - len(raw))


def inner(out):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
    s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
    s.bind((0, 0))
    ifindex = socket.if_nametoindex('v0')
    seeds = {}
    ifinfo = struct.pack('=BBHiII', 0, 0, 0, 0, 0, 0)
    seeds['link-dump'] = exchange(s, msg(RTM_GETLINK, NLM_F_DUMP, 1, ifinfo), 1, True)
    seeds['link-lo'] = exchange(s, msg(RTM_GETLINK, NLM_F_ACK, 2, ifinfo + attr(IFLA_IFNAME, b'lo\0')), 2, False)
    seeds['link-missing'] = exchange(s, msg(RTM_GETLINK, NLM_F_ACK, 3, ifinfo + attr(IFLA_IFNAME, b'nope0\0')), 3, False)
    seeds['addr-dump'] = exchange(s, msg(RTM_GETADDR, NLM_F_DUMP, 4, struct.pack('=BBBBI', 0, 0, 0, 0, 0)), 4, True)
    v4, v6 = socket.inet_pton(socket.AF_INET, '10.96.0.10'), socket.inet_pton(socket.AF_INET6, 'fd00::10')
    gone = socket.inet_pton(socket.AF_INET, '10.96.0.99')
    batch = [(True, socket.AF_INET, v4), (True, socket.AF_INET, v4), (True, socket.AF_INET6, v6),
             (False, socket.AF_INET, gone), (False, socket.AF_INET6, v6), (False, socket.AF_INET, v4)]
    data = b''.join(addr_msg(a, f, ifindex, r, 10 + i) for i, (a, f, r) in enumerate(batch))
    seeds['batch-acks'] = exchange(s, data, 10 + len(batch) - 1, False)
    for name, grams in seeds.items():
        for i, g in enumerate(grams):
            with open(os.path.join(out, f'{name}-{i + 1}.bin'), 'wb') as f:
                f.write(g)
    ops = op_record(1, 4, 32, ifindex, v4) + op_record(1, 6, 128, ifindex, v6) + op_record(2, 4, 32, ifindex, gone)
    with open(os.path.join(out, 'ops-3.bin'), 'wb') as f:
        f.write(ops)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, 'seeds', 'rtnl_replies'))
    os.makedirs(out, exist_ok=True)
    ns = f'kpnrtnlseeds-{os.getpid()}'
    subprocess.run(['ip', 'netns', 'add', ns], check=True)
    try:
        run = lambda *a: subprocess.run(['ip', 'netns', 'exec', ns, *a], check=True)
        run('ip', 'link', 'set', 'lo', 'up')
        run('ip', 'link', 'add', 'v0', 'type', 'veth', 'peer', 'name', 'v1')
        run('ip', 'addr', 'add', '10.0.0.1/24', 'dev', 'v0')
        run('ip', 'addr', 'add', 'fd00:1::1/64', 'dev', 'v0', 'nodad')
        run(sys.executable, os.path.abspath(__file__), '--inner', out)
    finally:
        subprocess.run(['ip', 'netns', 'del', ns])


if __name__ == '__main__':
    if len(sys.argv) > 2 and sys.argv[1] == '--inner':
        inner(sys.argv[2])
    else:
        main()
