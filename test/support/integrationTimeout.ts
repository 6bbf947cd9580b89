// Real-server tests run thousands of Updates; jest ignores testTimeout inside a project config.
jest.setTimeout(600_000);
