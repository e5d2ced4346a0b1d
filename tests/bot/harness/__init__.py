"""Local fakes of the Discord REST API and the Slack Web API on 127.0.0.1 (real clients run)."""
