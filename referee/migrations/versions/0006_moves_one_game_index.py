"""moves: one index on game_id, the unique (game_id, seq). The plain index on game_id alone was
redundant (game_id leads the unique one) and misled PostgreSQL: with it, the next position in a
game's log, max(seq), was read by walking every move of the game (a move grew with the game: 0.18 ms
at move 400) instead of the last entry of (game_id, seq); and every move kept both up to date

Revision ID: 0006_moves_one_game_index
Revises: 0005_groups
Create Date: 2026-11-26 21:00:00

"""
from alembic import op


revision = '0006_moves_one_game_index'
down_revision = '0005_groups'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('moves') as batch_op:
        batch_op.drop_index('ix_moves_game_id')


def downgrade():
    with op.batch_alter_table('moves') as batch_op:
        batch_op.create_index('ix_moves_game_id', ['game_id'], unique=False)
