// An alert source's alerts get their severity from one label, read as the words Prometheus
// rules use.
import { expect } from 'chai';
import { severityOf } from '../../../src/alertsources/model.js';

describe('alert source severity', () => {
  const source = { severity_label: 'severity', default_severity: 'warning' } as const;
  it('reads the words of the severity label, in any case, else the default', () => {
    const read = (value: string | undefined) => severityOf(source, value === undefined ? {} : { severity: value });
    expect(['critical', 'page', 'Critical', ' PAGE '].map(read)).to.deep.equal(['critical', 'critical', 'critical', 'critical']);
    expect(['error', 'high', 'warning', 'warn', 'info', 'low', 'none'].map(read)).to.deep.equal([
      'error',
      'error',
      'warning',
      'warning',
      'info',
      'info',
      'info',
    ]);
    expect(['', 'disaster', 'constructor', undefined].map(read)).to.deep.equal(['warning', 'warning', 'warning', 'warning']);
  });
  it('reads the label the source names', () => {
    expect(severityOf({ severity_label: 'priority', default_severity: 'error' }, { severity: 'info', priority: 'page' })).to.equal('critical');
    expect(severityOf({ severity_label: 'priority', default_severity: 'error' }, { severity: 'info' })).to.equal('error');
  });
});
