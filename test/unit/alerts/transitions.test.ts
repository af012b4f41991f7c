import { expect } from 'chai';
import { ALERT_STATUSES } from '../../../src/alerts/model.js';
import { ALERT_ACTIONS, evaluationStep, transitionFor } from '../../../src/alerts/transitions.js';

describe('alert state machine', () => {
  // The transitions of docs/api.md (Alerts), written out move by move: [action, from, to or null when refused].
  const expected: Record<string, Record<string, string | null>> = {
    acknowledge: { triggered: 'acknowledged', acknowledged: null, resolved: null, archived: null },
    resolve: { triggered: 'resolved', acknowledged: 'resolved', resolved: null, archived: null },
    archive: { triggered: 'archived', acknowledged: 'archived', resolved: 'archived', archived: null },
  };

  for (const action of ALERT_ACTIONS) {
    for (const status of ALERT_STATUSES) {
      const to = expected[action]![status];
      it(`${action} from ${status}: ${to ?? 'refused'}`, () => {
        expect(transitionFor(action, status)?.to ?? null).to.equal(to);
      });
    }
  }

  it('sets the timestamp of each action', () => {
    expect(transitionFor('acknowledge', 'triggered')!.stamp).to.equal('acknowledged_at');
    expect(transitionFor('resolve', 'acknowledged')!.stamp).to.equal('resolved_at');
    expect(transitionFor('archive', 'resolved')!.stamp).to.equal('archived_at');
  });

  it('notifies on resolve only (acknowledge and archive are silent)', () => {
    expect(transitionFor('resolve', 'triggered')!.notifies).to.equal('alert.resolved');
    expect(transitionFor('acknowledge', 'triggered')!.notifies).to.equal(null);
    expect(transitionFor('archive', 'triggered')!.notifies).to.equal(null);
  });

  it('maps verdicts to evaluation steps', () => {
    expect(evaluationStep('breach', false)).to.equal('raise');
    expect(evaluationStep('breach', true)).to.equal('update');
    expect(evaluationStep('clear', true)).to.equal('resolve');
    expect(evaluationStep('clear', false)).to.equal('nothing');
    expect(evaluationStep('none', true)).to.equal('nothing');
    expect(evaluationStep('none', false)).to.equal('nothing');
  });
});
