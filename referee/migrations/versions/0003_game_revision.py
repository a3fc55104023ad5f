"""games.revision: every write to a game (a move or an undo) counts, so an ETag names one state
forever, even after an undo and a different move bring the version back

Revision ID: 0003_game_revision
Revises: 0002_move_checkpoints
Create Date: 2026-11-24 23:10:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0003_game_revision'
down_revision = '0002_move_checkpoints'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('games') as batch_op:
        batch_op.add_column(sa.Column('revision', sa.Integer(), nullable=False, server_default='0'))
    # Each logged move was one write, and each voided one was undone by one more.
    op.execute("UPDATE games SET revision = (SELECT COUNT(*) FROM moves WHERE moves.game_id = games.id)"
               " + (SELECT COUNT(*) FROM moves WHERE moves.game_id = games.id AND moves.voided)")


def downgrade():
    with op.batch_alter_table('games') as batch_op:
        batch_op.drop_column('revision')
