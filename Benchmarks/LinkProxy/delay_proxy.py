#!/usr/bin/env python3
"""A TCP proxy that delays every byte by a fixed time in each direction: a long link on loopback.

    delay_proxy.py --target 127.0.0.1:8080 --delay-ms 25 [--listen 127.0.0.1:0]

Prints `listening <port>` on stdout once it accepts connections. Each chunk read from one side is written to the
other `--delay-ms` after it was read, in order, with no bandwidth limit: a round trip through the proxy costs twice
the delay (25 ms → a 50 ms RTT). Standard library only (asyncio).
"""
import argparse
import asyncio
import sys

CHUNK = 256 * 1024


async def pump(reader, writer, delay):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def read_side():
        try:
            while True:
                data = await reader.read(CHUNK)
                queue.put_nowait((loop.time() + delay, data))
                if not data:
                    return
        except (ConnectionError, OSError):
            queue.put_nowait((loop.time() + delay, b""))

    async def write_side():
        try:
            while True:
                due, data = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            return

    await asyncio.gather(read_side(), write_side())


async def handle(client_reader, client_writer, target, delay):
    host, port = target
    try:
        server_reader, server_writer = await asyncio.open_connection(host, port)
    except OSError:
        client_writer.close()
        return
    try:
        await asyncio.gather(pump(client_reader, server_writer, delay), pump(server_reader, client_writer, delay))
    finally:
        for w in (client_writer, server_writer):
            try:
                w.close()
            except Exception:
                pass


def address(text):
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, type=address, help="HOST:PORT of the server behind the link")
    parser.add_argument("--listen", default="127.0.0.1:0", type=address, help="HOST:PORT to accept on (port 0: any)")
    parser.add_argument("--delay-ms", required=True, type=float, help="delay added in each direction, milliseconds")
    args = parser.parse_args()
    delay = args.delay_ms / 1000
    server = await asyncio.start_server(lambda r, w: handle(r, w, args.target, delay), *args.listen)
    print(f"listening {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
