// The simulated hosts of test/bench/fleet-bus.mjs, in one process: N lightweight publishers, each
// with its own NATS connection (as N hosts would have), putting a host document under its own key
// of the hosts bucket every TICK_MS, their puts spread evenly over the tick. Each document is the
// real service's own (read from its key), renamed and restamped, so it is a real snapshot's size.
// Prints `ready` once every host has put once; stops when stdin ends.
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';

const [url, count, tickMs, template] = [
  process.argv[2],
  Number(process.argv[3]),
  Number(process.argv[4]),
  process.argv[5],
];
const base = JSON.parse(template);
const encoder = new TextEncoder();
const document = (i) => {
  const now = Date.now();
  const id = `sim${String(i).padStart(3, '0')}`;
  return encoder.encode(
    JSON.stringify({
      ...base,
      now_ms: now,
      host: { ...base.host, hostname: id, sample_ms: now },
      bus: { identity: `h_${'abcdefghijklmnopqrstuvwxyz234567'[i % 32].repeat(12)}`, rpc: true },
    }),
  );
};

const hosts = [];
for (let i = 0; i < count; i++) {
  const nc = await connect({ servers: url, name: `sim ${i}` });
  hosts.push({ nc, kv: await new Kvm(nc).open('dogsled_hosts'), key: `sim${String(i).padStart(3, '0')}` });
}
const putOnce = new Set();
const timers = [];
hosts.forEach((host, i) => {
  const put = () =>
    host.kv.put(host.key, document(i)).then(
      () => {
        if (putOnce.size === count) return;
        putOnce.add(i);
        if (putOnce.size === count) process.stdout.write('ready\n');
      },
      (error) => process.stderr.write(`sim ${i}: ${error.message}\n`),
    );
  timers[i] = setTimeout(
    () => {
      void put();
      timers[i] = setInterval(put, tickMs);
    },
    Math.round((i * tickMs) / count),
  );
});
process.stdin.on('end', async () => {
  for (const timer of timers) clearInterval(timer);
  await Promise.all(hosts.map((host) => host.nc.close()));
  process.exit(0);
});
process.stdin.resume();
