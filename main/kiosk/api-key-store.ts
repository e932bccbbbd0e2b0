/**
 * Where the kiosk keeps its Bearer API key. The spec requires platform secure
 * storage (spec "Authentication" 8, "EnrollResponse" api_key): the real
 * implementation is the keytar-backed main/kiosk/secret-store.ts, adapted by
 * keychain-api-key-store.ts. The core depends only on this interface, so it
 * never sees how or where the key is kept.
 *
 * The core always passes `iss`, the issuer base URL the key belongs to (at
 * enrollment the key is saved before the enrollment state exists, so the store
 * cannot look it up). Stores that keep one key per kiosk may ignore it.
 */
export interface ApiKeyStore {
  saveApiKey(apiKey: string, iss?: string): Promise<void>;
  /** The saved key, or null when there is none. */
  loadApiKey(iss?: string): Promise<string | null>;
  deleteApiKey(iss?: string): Promise<void>;
  /**
   * Optional: resolves when the store can keep a key right now, throws an
   * error with a secret-free message for the operator otherwise. Enrollment
   * calls it BEFORE spending the single-use token on the issuer.
   */
  checkAvailable?(): Promise<void>;
}
