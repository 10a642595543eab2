# Runs in a pod's namespace. Watches one TCP connection between the pod's server port and a client
# (AF_PACKET, IPv4), and once it has seen the client's data and the pod's reply, sends one ACK from
# the pod to the client with the right 4-tuple and acknowledgement but a sequence number 2^30 beyond
# what the pod has sent: out of the TCP window, so the node's conntrack marks it INVALID
# (kubernetes#74839). Prints "SNIFFING", then "INJECTED <seq> <ack> <client port>".
# Usage: python3 inject-out-of-window.py <client IP> <pod port> <timeout seconds>
import os
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003  # outgoing packets reach only ETH_P_ALL taps


def checksum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def parse(pkt):
    """(src, dst, sport, dport, seq, ack, payload length) of an IPv4 TCP packet, or None."""
    if len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[9] != socket.IPPROTO_TCP:
        return None
    ihl = (pkt[0] & 0xf) * 4
    total = struct.unpack('!H', pkt[2:4])[0]
    if len(pkt) < ihl + 20 or total > len(pkt):
        return None
    sport, dport, seq, ack, off = struct.unpack('!HHIIB', pkt[ihl:ihl + 13])
    thl = (off >> 4) * 4
    return socket.inet_ntoa(pkt[12:16]), socket.inet_ntoa(pkt[16:20]), sport, dport, seq, ack, total - ihl - thl


def tcp_ack(src, dst, sport, dport, seq, ack):
    """An IPv4 packet holding a bare ACK; the kernel fills in the IP checksum and id."""
    saddr, daddr = socket.inet_aton(src), socket.inet_aton(dst)
    tcp = struct.pack('!HHIIBBHHH', sport, dport, seq, ack, 5 << 4, 0x10, 502, 0, 0)
    pseudo = saddr + daddr + struct.pack('!BBH', 0, socket.IPPROTO_TCP, len(tcp))
    tcp = tcp[:16] + struct.pack('!H', checksum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), 0, 0, 64, socket.IPPROTO_TCP, 0, saddr, daddr)
    return ip + tcp


def main():
    client, port, timeout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    sniff = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
    sniff.settimeout(timeout)
    print('SNIFFING', flush=True)
    deadline = time.time() + timeout
    client_next = None
    while time.time() < deadline:
        p = parse(sniff.recv(65535))
        if os.environ.get('INJECT_DEBUG'):
            print('seen', p, file=sys.stderr, flush=True)
        if not p or p[6] == 0:
            continue
        src, dst, sport, dport, seq, ack, length = p
        if src == client and dport == port:
            client_next = (seq + length) & 0xffffffff
        elif dst == client and sport == port and client_next is not None:
            far = (seq + length + (1 << 30)) & 0xffffffff
            raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
            raw.sendto(tcp_ack(src, dst, sport, dport, far, client_next), (dst, 0))
            print('INJECTED %d %d %d' % (far, client_next, dport), flush=True)
            return
    print('TIMEOUT', flush=True)
    sys.exit(1)


main()
