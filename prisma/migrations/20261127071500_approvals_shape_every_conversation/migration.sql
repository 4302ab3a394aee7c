-- Approvals for writes to files read into every conversation (bootstrap files, MEMORY.md, memory/**,
-- skills/**; issue 22) say so, and one asked on a turn that is not the owner's can only be approved
-- by the owner.
ALTER TABLE "tool_approvals" ADD COLUMN "shapes_every_conversation" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "reason" TEXT,
ADD COLUMN "owner_only" BOOLEAN NOT NULL DEFAULT false;
