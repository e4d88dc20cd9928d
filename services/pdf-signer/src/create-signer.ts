import { createHttpRevocationFetcher } from './adapters/http-revocation-fetcher';
import { createHttpTimestampAuthorities } from './adapters/http-timestamp-authority';
import { assembleSigner } from './domain/assemble-signer';
import type { AssembleSignerOptions, Signer } from './domain/assemble-signer';
import type { TimestampSettings } from './domain/ltv/request-timestamp';
import type { RevocationSettings } from './domain/ltv/revocation';

/** How to build a signer: the domain's options, with the TSAs and revocation sources as settings. */
export interface SignerOptions extends Omit<AssembleSignerOptions, 'timestamps' | 'revocation'> {
  /**
   * The TSAs that timestamp every signature (PAdES B-T), asked over HTTP(S). Without them (or with
   * no URL) signatures carry no timestamp: for tests of other things only.
   */
  readonly timestamps?: TimestampSettings;
  /**
   * Revocation data (OCSP, else CRL) of the signing chain and of the TSA's certificates, for the DSS
   * (PAdES B-LT), fetched over HTTP at creation and refreshed in the background, never while
   * signing. Without it, none is fetched.
   */
  readonly revocation?: RevocationSettings;
}

/**
 * Create a signer wired to the network: the TSA client and the OCSP/CRL client (`src/adapters/`)
 * injected into the domain's signer. What each signing worker runs (one per thread, since adapters
 * keep connections), and what tests and benchmarks sign with in-process.
 */
export const createSigner = (options: SignerOptions = {}): Promise<Signer> => {
  const { timestamps, revocation, ...rest } = options;
  return assembleSigner({
    ...rest,
    ...(timestamps
      ? {
          timestamps: {
            authorities: createHttpTimestampAuthorities(timestamps),
            maxTokenBytes: timestamps.maxTokenBytes,
          },
        }
      : {}),
    ...(revocation
      ? {
          revocation: {
            fetcher: createHttpRevocationFetcher(revocation),
            ...(revocation.refreshMs === undefined ? {} : { refreshMs: revocation.refreshMs }),
          },
        }
      : {}),
  });
};
