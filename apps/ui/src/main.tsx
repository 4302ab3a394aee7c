import { render } from 'preact';
import { App } from './app';
// Every look is a class in these files: no inline style anywhere (the page runs under style-src 'self').
import './styles/theme.css';
import './styles/layout.css';
import './styles/chat.css';
import './styles/operator.css';

render(<App />, document.getElementById('app')!);
