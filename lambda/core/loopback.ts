/**
 * True for a host only this machine can reach: `localhost`, 127.0.0.0/8, `::1` (with or without
 * brackets, in any zero-padded form) and the IPv4-mapped `::ffff:127.x.y.z`. Pure: no DNS, so a
 * name that merely resolves to 127.0.0.1 does not count.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  const octets = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v4);
  if (octets) return octets.slice(1).every((o) => Number(o) <= 255) && octets[1] === '127';
  // IPv6: every group before the last is zero (however written), the last is 1.
  const last = bare.lastIndexOf(':');
  return last > 0 && /^[0:]+$/.test(bare.slice(0, last + 1)) && /^0{0,3}1$/.test(bare.slice(last + 1));
}
