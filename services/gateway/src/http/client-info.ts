import type { Request } from 'express';

/** The caller's IP as a plain address (IPv4-mapped IPv6 shown as IPv4). */
export const clientIp = (req: Request): string => {
  const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
};

export const userAgent = (req: Request): string => (req.get('user-agent') ?? '').slice(0, 512) || 'unknown';
