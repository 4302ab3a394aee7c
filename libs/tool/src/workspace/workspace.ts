/** The one directory a tool may touch, as seen from the host. */
export interface Workspace {
  /** Absolute, real path on the host. */
  hostPath: string;
  access: 'rw' | 'ro' | 'none';
}

/** Where the workspace appears inside a sandbox. */
export const SANDBOX_WORKSPACE = '/workspace';
