// The relay's added latency: an SDK 1.x Client calls `tools/call` on an
// in-process McpServer through one hop, sequentially, the hop being either a plain pipe (each
// message handed to the other side's transport as it is) or createRelay (each message
// through the relay's core: ids and progress tokens mapped, both sides' sessions kept).
// Transports are the SDK's InMemoryTransport; runs alternate in ABBA/BAAB blocks so a drift
// hits both alike. Per forwarded message = the difference per round trip / 2 (the request
// and its response each cross the hop once).
//
//   node bench/relay.mjs [--quick]   prints the result as JSON on its last line
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import { createRelay } from "mcp-cancel";

import { median, roundTrips } from "./sdk.mjs";

const PAYLOAD = "x".repeat(100);

function server() {
  const s = new McpServer({ name: "bench", version: "0.0.0" });
  s.registerTool("echo", {}, async () => ({ content: [{ type: "text", text: PAYLOAD }] }));
  return s;
}

/** A plain forwarding hop between two transports (what a relay does without bookkeeping). */
async function pipe(downstream, upstream) {
  downstream.onmessage = (m) => void upstream.send(m);
  upstream.onmessage = (m) => void downstream.send(m);
  await upstream.start();
  await downstream.start();
}

async function connect(kind) {
  const [clientEnd, hopDown] = InMemoryTransport.createLinkedPair();
  const [hopUp, serverEnd] = InMemoryTransport.createLinkedPair();
  await server().connect(serverEnd);
  let relay;
  if (kind === "relay") {
    relay = createRelay({ upstream: hopUp });
    await relay.start();
    relay.connect(hopDown);
    await hopDown.start();
  } else {
    await pipe(hopDown, hopUp);
  }
  const client = new Client({ name: "bench", version: "0.0.0" });
  await client.connect(clientEnd);
  return { client, close: async () => { await client.close(); await relay?.close(); } };
}

/**
 * µs per round trip through a plain pipe and through the relay: `calls` round trips per
 * connection and round after 6 000 of warm-up, in blocks of 500 in ABBA/BAAB order; the
 * median block of all rounds.
 */
export async function runRelay({ calls = 10_000, rounds = 3 } = {}) {
  const conns = { pipe: await connect("pipe"), relay: await connect("relay") };
  for (let i = 0; i < 3; i++) {
    await roundTrips(conns.relay.client, 2000);
    await roundTrips(conns.pipe.client, 2000);
  }
  const times = { pipe: [], relay: [] };
  const block = 500;
  for (let r = 0; r < rounds; r++) {
    for (let done = 0; done < calls; done += 2 * block) {
      const [x, y] = (done / (2 * block)) % 2 ? ["relay", "pipe"] : ["pipe", "relay"];
      times[x].push(await roundTrips(conns[x].client, block));
      times[y].push(await roundTrips(conns[y].client, block));
      times[y].push(await roundTrips(conns[y].client, block));
      times[x].push(await roundTrips(conns[x].client, block));
    }
  }
  await conns.pipe.close();
  await conns.relay.close();
  const pipeUs = median(times.pipe);
  const relayUs = median(times.relay);
  return { calls, rounds, blocks: times.pipe.length, pipeUs, relayUs, perMessageUs: (relayUs - pipeUs) / 2, overheadPct: ((relayUs - pipeUs) / pipeUs) * 100 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes("--quick");
  const r = await runRelay({ calls: quick ? 2000 : 10_000, rounds: quick ? 1 : 3 });
  console.log(`plain pipe ${r.pipeUs.toFixed(1)} µs, relay ${r.relayUs.toFixed(1)} µs per round trip: +${r.perMessageUs.toFixed(2)} µs per forwarded message (${r.overheadPct.toFixed(1)}%)`);
  console.log(JSON.stringify(r));
}
