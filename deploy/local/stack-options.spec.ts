import { describe, expect, it } from '@jest/globals';
import { parseReplicas, stackOptionsFromEnvironment } from './stack.js';

const log = () => undefined;

describe('the launcher reads replicas and restarts from the environment', () => {
  it('runs one process per service unless IOA_REPLICAS says otherwise', () => {
    expect(parseReplicas(undefined)).toEqual({});
    expect(parseReplicas(' chat=2, scheduler = 3 ,')).toEqual({ chat: 2, scheduler: 3 });
  });

  it('refuses unknown services, counts that are not whole numbers from 1 to 16, and a second gateway', () => {
    expect(() => parseReplicas('chats=2')).toThrow('IOA_REPLICAS names an unknown service "chats"');
    expect(() => parseReplicas('chat=0')).toThrow('chat needs a whole number of replicas from 1 to 16, got "0"');
    expect(() => parseReplicas('chat=1.5')).toThrow('got "1.5"');
    expect(() => parseReplicas('chat')).toThrow('got "undefined"');
    expect(() => parseReplicas('gateway=2')).toThrow('the gateway listens on one port');
  });

  it('supervises by default and stops supervising with IOA_RESTART=no', () => {
    expect(stackOptionsFromEnvironment({}, { log }).restart).toBe('unless-stopped');
    expect(stackOptionsFromEnvironment({ IOA_RESTART: 'no', IOA_REPLICAS: 'chat=2' }, { log })).toMatchObject({
      restart: 'no',
      replicas: { chat: 2 },
    });
    expect(() => stackOptionsFromEnvironment({ IOA_RESTART: 'sometimes' }, { log })).toThrow('IOA_RESTART must be');
  });
});
