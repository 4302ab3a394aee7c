'use strict';
// A trusted (Track A) nestclaw plugin: loaded inside the gateway, so only for code the owner trusts.
// It needs nothing from nestclaw but the `api` object register() receives (docs/plugins.md).

exports.register = (api) => {
  const greeting = api.config.greeting || 'Hello';

  api.registerTool({
    name: 'hello_greet',
    description: 'Greets someone by name',
    inputSchema: { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] },
    sideEffects: false,
    execute: ({ name }) => `${greeting}, ${name}!`,
  });

  // Used in config as `models.<name>: { provider: plugin:hello-echo, model: <anything> }`.
  api.registerProvider({
    id: 'hello-echo',
    create: (settings) => ({
      async chat(request) {
        const last = [...request.messages].reverse().find((m) => m.role === 'user');
        const text = last ? last.content : '';
        return {
          content: `${settings.model} says: ${greeting}! You wrote: ${text}`,
          usage: { inputTokens: text.length, outputTokens: text.length + 10 },
        };
      },
    }),
  });

  api.logger.log(`ready (greeting: ${greeting})`);
};
