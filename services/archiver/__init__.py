"""The archiver: finished matches moved from Redis to the archive, ``ARCHIVE_AFTER`` seconds after their end."""
