// The notice on an object managed from a file (docs/as-code.md, Drift): shown where the object
// is edited, when the last document applied to the workspace had it. Changed here since that
// apply, it says so (the next apply will overwrite the change); otherwise it says that a
// change here lasts only until the next apply.
import type { JSX } from 'preact';
import { browserZone } from '../shared/time.js';
import { api } from './api.js';
import { Time } from './components.js';
import { useLoad } from './hooks.js';

/** `id`: the object's id; for dimensions, the event name. */
export type ManagedKind = 'policies' | 'destinations' | 'people' | 'schedules' | 'escalation_policies' | 'alert_sources' | 'silences' | 'dimensions';

interface ManagedStatus {
  readonly managed: boolean;
  readonly applied_at?: string;
  readonly changed?: boolean;
}

/** `version`: anything that changes when the object was saved (the notice is read again). */
export function ManagedNotice({ kind, id, version }: { kind: ManagedKind; id: string; version?: unknown }): JSX.Element | null {
  const status = useLoad(() => api<ManagedStatus>('GET', `/v1.0/config/managed?kind=${kind}&id=${encodeURIComponent(id)}`), [kind, id, version]);
  const s = status.value;
  if (!s?.managed) return null;
  const applied = <Time at={s.applied_at} zone={browserZone()} />;
  return s.changed ? (
    <p class="notice managed-drift" role="note">
      <strong>Managed from a file:</strong> changed here since the last apply on {applied}; the next apply will overwrite it.
    </p>
  ) : (
    <p class="notice managed" role="note">
      <strong>Managed from a file,</strong> applied on {applied}: a change made here lasts until the next apply of the file.
    </p>
  );
}
