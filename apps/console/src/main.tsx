import '@mantine/core/styles.css';
import { createRoot } from 'react-dom/client';
import { MantineProvider } from '@mantine/core';
import { App } from './App';
import { consoleCssVariables, consoleTheme } from './theme';

createRoot(document.getElementById('root')!).render(
  <MantineProvider defaultColorScheme="light" theme={consoleTheme} cssVariablesResolver={consoleCssVariables}>
    <App />
  </MantineProvider>,
);
