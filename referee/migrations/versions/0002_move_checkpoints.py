"""checkpoints: the state after every few moves, so that undo replays a few moves

Revision ID: 0002_move_checkpoints
Revises: 0001_initial
Create Date: 2026-11-23 11:40:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0002_move_checkpoints'
down_revision = '0001_initial'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('moves') as batch_op:
        batch_op.add_column(sa.Column('checkpoint', sa.JSON(none_as_null=True), nullable=True))


def downgrade():
    with op.batch_alter_table('moves') as batch_op:
        batch_op.drop_column('checkpoint')
