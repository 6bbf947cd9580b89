/**
 * A gRPC call to the Temporal frontend from nothing but Python's standard library (every Debian has
 * it, in the sandbox too): TCP, then TLS (or not), then HTTP/2 by hand, then
 * WorkflowService/GetSystemInfo, the one call that needs no namespace. It prints what happened at
 * each step, and `GRPC_OK ... serverVersion=<v>` only when the server answered the call.
 * The same script runs in a member's bash (the attacker, without the worker's credentials) and on the
 * host (with them), so a failure in the sandbox is the frontend's refusal and not a broken probe.
 *
 *   python3 probe.py HOST PORT MODE [CA CERT KEY]
 *   MODE: tls (TLS 1.2 or 1.3, ALPN h2), tls12 (TLS 1.2 at most), plain (HTTP/2 without TLS).
 *   Without CA the server's certificate is not checked (an attacker does not care whom it talks to);
 *   without CERT and KEY no client certificate is sent.
 * Exit codes: 0 the call was answered, 2 refused (handshake or connection), 3 refused by HTTP/2.
 */
export const FRONTEND_PROBE_PYTHON = String.raw`import socket, ssl, struct, sys

host, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ca, cert, key = (sys.argv[4:7] + ['', '', ''])[:3]
METHOD = b'/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo'

def frame(kind, flags, stream, payload=b''):
  return struct.pack('>I', len(payload))[1:] + bytes([kind, flags]) + struct.pack('>I', stream) + payload

def header(name, value):  # HPACK literal without indexing, new name, no Huffman (every string here is under 127 bytes)
  return b'\x00' + bytes([len(name)]) + name + bytes([len(value)]) + value

def read_exact(conn, n):
  data = b''
  while len(data) < n:
    chunk = conn.recv(n - len(data))
    if not chunk:
      raise EOFError('connection closed by the server after %d of %d bytes' % (len(data), n))
    data += chunk
  return data

conn = socket.create_connection((host, port), timeout=10)
print('tcp: connected to %s:%d' % (host, port), flush=True)
if mode != 'plain':
  ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
  try:
    if ca:
      ctx.load_verify_locations(ca)
    else:
      ctx.check_hostname = False
      ctx.verify_mode = ssl.CERT_NONE
    if cert:
      ctx.load_cert_chain(cert, key)
  except Exception as e:
    print('tls: credentials unusable: %s: %s' % (type(e).__name__, e))
    sys.exit(2)
  if mode == 'tls12':
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
  ctx.set_alpn_protocols(['h2'])
  try:
    conn = ctx.wrap_socket(conn, server_hostname='localhost')
  except Exception as e:
    print('tls: handshake failed: %s: %s' % (type(e).__name__, e))
    sys.exit(2)
  print('tls: handshake done (%s, alpn %s, client certificate %s)' % (conn.version(), conn.selected_alpn_protocol(), 'sent' if cert else 'none'), flush=True)
scheme = b'http' if mode == 'plain' else b'https'
fields = [(b':method', b'POST'), (b':scheme', scheme), (b':path', METHOD), (b':authority', b'localhost'),
          (b'content-type', b'application/grpc'), (b'te', b'trailers')]
request = frame(1, 4, 1, b''.join(header(n, v) for n, v in fields)) + frame(0, 1, 1, b'\x00\x00\x00\x00\x00')
try:
  # Over TLS the server speaks first: its SETTINGS when it took the client's certificate, its alert when it did not.
  # Reading that first keeps the alert: a write that races the server's close can fail on the closed
  # connection before the alert is read, and the probe then saw only an EOF (a CI run did).
  head = read_exact(conn, 9) if mode != 'plain' else None
  conn.sendall(b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' + frame(4, 0, 0) + request)
  print('h2: preface, SETTINGS and the GetSystemInfo request sent', flush=True)
  while True:
    head = head or read_exact(conn, 9)
    length, kind, flags, stream = int.from_bytes(head[:3], 'big'), head[3], head[4], struct.unpack('>I', head[5:])[0] & 0x7fffffff
    payload, head = read_exact(conn, length), None
    if kind == 4 and not flags & 1:
      conn.sendall(frame(4, 1, 0))
    elif kind == 7:
      print('h2: GOAWAY %r' % payload[8:])
      sys.exit(3)
    elif kind == 3:
      print('h2: RST_STREAM code %d' % int.from_bytes(payload, 'big'))
      sys.exit(3)
    elif kind == 0 and stream == 1 and len(payload) > 7 and payload[5] == 0x0a:
      print('GRPC_OK GetSystemInfo serverVersion=%s' % payload[7:7 + payload[6]].decode())
      sys.exit(0)
except Exception as e:
  print('grpc: failed: %s: %s' % (type(e).__name__, e))
  sys.exit(2)
`;
