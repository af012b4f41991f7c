// The web console: a person holding a workspace token looks at events, policies, alerts and
// destinations. Preact (a 4 kB React-compatible UI library) renders it; uPlot draws charts.
import { render } from 'preact';
import './console.css';
import { App } from './app.js';

const root = document.getElementById('app')!;
root.replaceChildren(); // the "Loading…" placeholder of the HTML
render(<App />, root);
