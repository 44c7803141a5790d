#!/usr/bin/env python3
"""Load client for `vision-tasks serve` (used by scripts/dev/load-test): N concurrent live sessions
on 127.0.0.1, each streaming the same JPEG frames with one frame in flight (as the demo page
does), for a bounded time and frame count. Prints per-frame latency (median, p99), frames per
second served, drops and errors as one JSON line. Standard library only (a minimal RFC 6455
client: masked binary frames out, text frames in)."""
import argparse, asyncio, base64, json, os, statistics, struct, sys, time


async def open_session(port, query):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /v1/live?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = await reader.readuntil(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 101"):
        raise RuntimeError(head.decode(errors="replace"))
    return reader, writer


def frame(opcode, payload):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if n < 4096 else _mask_fast(payload, mask)
    return head + mask + body


def _mask_fast(payload, mask):
    m = int.from_bytes(mask * (len(payload) // 4 + 1), "little").to_bytes(4 * (len(payload) // 4 + 1), "little")[:len(payload)]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(m, "little")).to_bytes(len(payload), "little")


async def read_message(reader, writer):
    """The next text message; pings (the server sends one every 30 s) are answered with pongs."""
    while True:
        b0, b1 = await reader.readexactly(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", await reader.readexactly(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", await reader.readexactly(8))[0]
        payload = await reader.readexactly(n)
        opcode = b0 & 0x0F
        if opcode == 0x8:
            return None
        if opcode == 0x9:
            writer.write(frame(0xA, payload))
        if opcode == 0x1:
            return json.loads(payload)


async def session(port, task, frames, deadline, max_frames, stats):
    try:
        reader, writer = await open_session(port, f"task={task}")
    except Exception as error:  # refused or failed: an error
        stats["errors"] += 1
        stats["error_samples"].append(str(error)[:200])
        return
    try:
        ready = await read_message(reader, writer)
        if not ready or ready.get("type") != "ready":
            stats["errors"] += 1
            stats["error_samples"].append(json.dumps(ready)[:200])
            return
        timestamp, sent = 0, 0
        while time.monotonic() < deadline and sent < max_frames:
            jpeg = frames[sent % len(frames)]
            timestamp += 33
            started = time.monotonic()
            writer.write(frame(0x2, struct.pack("<q", timestamp) + jpeg))
            await writer.drain()
            sent += 1
            while True:
                answer = await read_message(reader, writer)
                if answer is None:
                    stats["errors"] += 1
                    return
                if answer.get("type") in ("result", "error"):
                    break
            if answer["type"] == "error":
                stats["errors"] += 1
                stats["error_samples"].append(json.dumps(answer)[:200])
                continue
            stats["latencies"].append((time.monotonic() - started) * 1000)
            stats["server_ms"].append(answer["processingMilliseconds"])
            stats["drops_by_session"][id(writer)] = answer["droppedFrames"]
    finally:
        writer.write(frame(0x8, struct.pack(">H", 1000)))
        try:
            await writer.drain()
        except Exception:
            pass
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--task", default="gesture")
    parser.add_argument("--frames-dir", required=True)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--max-frames", type=int, default=5000, help="per session")
    args = parser.parse_args()
    names = sorted(n for n in os.listdir(args.frames_dir) if n.endswith(".jpg"))
    frames = [open(os.path.join(args.frames_dir, n), "rb").read() for n in names]
    stats = {"latencies": [], "server_ms": [], "errors": 0, "error_samples": [], "dropped": 0, "drops_by_session": {}}
    started = time.monotonic()
    deadline = started + args.seconds
    await asyncio.gather(*(session(args.port, args.task, frames, deadline, args.max_frames, stats) for _ in range(args.sessions)))
    elapsed = time.monotonic() - started
    lat = sorted(stats["latencies"])
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] if lat else None
    print(json.dumps({
        "sessions": args.sessions, "task": args.task, "seconds": round(elapsed, 1), "frames": len(lat),
        "fps": round(len(lat) / elapsed, 2), "per_session_fps": round(len(lat) / elapsed / args.sessions, 2),
        "latency_ms_median": round(statistics.median(lat), 1) if lat else None,
        "latency_ms_p99": round(p(0.99), 1) if lat else None,
        "server_ms_median": round(statistics.median(stats["server_ms"]), 1) if lat else None,
        "dropped": sum(stats["drops_by_session"].values()), "errors": stats["errors"],
        "error_samples": stats["error_samples"][:3],
    }))


if __name__ == "__main__":
    asyncio.run(main())
