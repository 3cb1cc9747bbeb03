import net from 'node:net';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Lets this process open TCP connections to loopback only: any other connection attempt (whatever
 * the code under test decided) is recorded and fails before a packet is sent. Every outgoing TCP
 * connection, plain or TLS, goes through net.Socket.prototype.connect. `restore()` undoes it.
 */
export function guardConnections(): { attempts: string[]; restore: () => void } {
  const attempts: string[] = [];
  const original = net.Socket.prototype.connect;
  const spy = jest.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (this: net.Socket, ...args: unknown[]) {
    // net.connect() passes its normalized [options, callback]; a direct call passes (options | port, host?, ...)
    const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
    let host: string | null = 'localhost';
    if (typeof first === 'object' && first !== null) {
      const options = first as { host?: string; path?: string };
      host = options.path ? null : (options.host ?? 'localhost');
    } else if (typeof args[1] === 'string') host = args[1];
    if (host === null || LOOPBACK.has(host.replace(/^\[(.*)\]$/, '$1')))
      return (original as (...a: unknown[]) => net.Socket).apply(this, args);
    attempts.push(host);
    process.nextTick(() => this.destroy(new Error(`test connection guard: no connection to ${host}`)));
    return this;
  });
  return { attempts, restore: () => spy.mockRestore() };
}
