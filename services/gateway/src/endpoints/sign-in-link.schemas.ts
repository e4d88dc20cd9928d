import { z } from 'zod';
import { named } from '../api/named';

export const ZSignInLinkRequest = named(
  'SignInLinkRequest',
  'The email to send a sign-in link to.',
  z.object({ email: z.email({ error: 'email must be an email address' }).max(254) }),
);

export const ZSignInLinkAccepted = named(
  'SignInLinkAccepted',
  'The same answer whether or not the email has an account.',
  z.object({ accepted: z.literal(true), message: z.string() }),
);

export const ZSignInLinkRedeem = named(
  'SignInLinkRedeem',
  'The token of an emailed sign-in link (the part after #/link/ in the link).',
  z.object({
    token: z
      .string()
      .regex(/^[A-Za-z0-9_-]{43,128}$/, 'token must be the token of a sign-in link')
      .meta({ example: 'q2yQf1l7kq0c9m0Xo3V7i8p4e1M6b5n2k7h0d9s4a3w' }),
  }),
);
