import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Run the openssl command line in `cwd` (the throwaway test PKI and TSA are made with it). */
export const openssl = async (args: string[], cwd: string): Promise<void> => {
  await run('openssl', args, { cwd, timeout: 30_000 });
};

/**
 * A throwaway root CA in `dir`: an EC P-256 key `ca.key` and a self-signed certificate `ca.pem`,
 * valid for two days, that may sign certificates and CRLs.
 */
export const makeTestCa = async (dir: string, commonName: string): Promise<void> => {
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'], dir);
  await openssl(
    [
      'req',
      '-new',
      '-x509',
      '-key',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      `/CN=${commonName}/O=esign development`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
};
