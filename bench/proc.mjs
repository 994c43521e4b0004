// A process's resource use as Linux's /proc reports it, for the bridge benches
// (bench/bridge-load.mjs, scripts/instance-capacity.mjs).
import { readFileSync } from "node:fs";

/** CPU time (user + system) of process `pid` in ms, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time (user + system) of this process in ms. */
export function selfCpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Resident memory of process `pid` in bytes, from /proc. */
export function rssBytes(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) * 1024;
}
