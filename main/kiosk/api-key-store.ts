/**
 * Where the kiosk keeps its Bearer API key. The spec requires platform secure
 * storage (spec "Authentication" 8, "EnrollResponse" api_key): the real
 * implementation is the keytar-backed main/kiosk/secret-store.ts. The core
 * depends only on this interface, so it never sees how or where the key is kept.
 */
export interface ApiKeyStore {
  saveApiKey(apiKey: string): Promise<void>;
  /** The saved key, or null when there is none. */
  loadApiKey(): Promise<string | null>;
  deleteApiKey(): Promise<void>;
}
