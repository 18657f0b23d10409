"""A slow network in front of a storage node, on purpose: every byte a client sends the node is forwarded at
``--rate`` bytes per second, each burst after ``--latency`` (answers go back at full speed). Start the node with
``promptcache.storage.advertised-endpoint`` set to this proxy and every call to it (the index's and the engines'
presigned PUTs and GETs) goes through the slow path.

    python3 slow_proxy.py --listen 19001 --to 127.0.0.1:19000 --rate 20000000 --latency 0.02
"""

import argparse
import socket
import threading
import time


def pipe(source: socket.socket, sink: socket.socket, rate: float, latency: float) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            if rate > 0:
                time.sleep(latency + len(data) / rate)
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(listen: int, target: tuple, rate: float, latency: float) -> None:
    server = socket.create_server(("127.0.0.1", listen), reuse_port=False)
    while True:
        client, _ = server.accept()
        upstream = socket.create_connection(target)
        for args in ((client, upstream, rate, latency), (upstream, client, 0.0, 0.0)):
            threading.Thread(target=pipe, args=args, daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--to", required=True, help="host:port of the storage node")
    parser.add_argument("--rate", type=float, default=20e6, help="bytes per second towards the node")
    parser.add_argument("--latency", type=float, default=0.02, help="seconds added to every burst towards the node")
    args = parser.parse_args()
    host, port = args.to.rsplit(":", 1)
    serve(args.listen, (host, int(port)), args.rate, args.latency)


if __name__ == "__main__":
    main()
