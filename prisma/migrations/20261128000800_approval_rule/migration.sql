-- The rule that made a tool call wait for a human, in words, shown to the person deciding (the control UI's
-- Approvals inbox): tools.approval.required (and the HTTP method for http_request), the tool asking itself,
-- or owner-only. NULL for approvals asked before this column existed.
ALTER TABLE "tool_approvals" ADD COLUMN "rule" TEXT;
