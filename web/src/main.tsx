import { render } from 'preact';
import { App } from './components/app.tsx';

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
